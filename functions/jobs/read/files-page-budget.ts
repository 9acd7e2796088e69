/**
 * The byte bound of a page of files (docs/contract.md §6a). A function's answer travels to API Gateway as
 * Lambda's response payload, at most 6 MB, and the page's JSON is a string inside it (`body`), so every
 * quote and backslash of the page is escaped once more on the way. A page of heavily reviewed files
 * (`reviews` and five `previousReviews` each) reaches that limit long before 100 files; a page therefore
 * ends early, with a cursor, once its files would pass {@link PAGE_BYTES_BUDGET} — measured as each file
 * is carried inside the payload, escaping included — the file as answered, its pictures' presigned URLs (up to
 * six, each about 600 bytes and escaped again) counted with it. The budget leaves a whole mebibyte for the rest of the
 * answer (headers, the envelope, the other fields of the body), and a single file item is at most 400 KB,
 * which however escaped stays under the budget: a page always holds at least one file.
 */
import type { JobFile } from '../model/model';

/** Lambda's limit on a synchronous response payload: 6 MB. */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

/** What the files of one page may take inside the response payload. */
export const PAGE_BYTES_BUDGET = LAMBDA_RESPONSE_BYTES - 1024 * 1024;

/**
 * The bytes a file takes inside the response payload: its JSON, escaped again as part of the `body`
 * string (the two quotes of that string left out), plus the comma that separates it from the next.
 */
export const payloadBytesOf = (file: JobFile): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(file)), 'utf8') - 2 + 1;

/**
 * At most how many bytes the files take inside the response payload, from the page's JSON alone: each UTF-16
 * unit of a file's JSON is at most 3 bytes once escaped again (a quote or a backslash 2, a character of a
 * surrogate pair 2, any other character past U+07FF 3; JSON has no raw control character), plus each
 * file's comma.
 */
const payloadBytesBound = (files: readonly JobFile[]): number => 3 * JSON.stringify(files).length + files.length;

/**
 * How many of a page's files, from its start, fit the budget: every file while their payload bytes add
 * up to at most `budget`, and always the first. A page whose bound ({@link payloadBytesBound}) fits is
 * not sized file by file: one serialisation of the page instead of two of each file.
 */
export const filesWithinBudget = (files: readonly JobFile[], budget: number = PAGE_BYTES_BUDGET): number => {
  if (payloadBytesBound(files) <= budget) return files.length;
  let used = 0;
  for (const [index, file] of files.entries()) {
    used += payloadBytesOf(file);
    if (used > budget && index > 0) return index;
  }
  return files.length;
};
