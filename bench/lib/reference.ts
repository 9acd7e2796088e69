/**
 * An independent reference for POST /search (docs/contract.md §4), used to check the engine's answers at
 * scale: it reads the generated {@link Job} itself (not the search document, not `query-text`'s
 * conditions), streams every job of a population once, and keeps per search only what the answer needs —
 * a running exact count and the newest `offset + limit` matches in a bounded heap.
 *
 * Text semantics, straight from the contract: the query is cut into words by `text.words` (letters and
 * digits, case and diacritics folded); a text field matches when every query word is a prefix of some
 * word of the field's texts; Global matches when every word prefix-matches somewhere in the role's text
 * fields (words may match different fields), or when the whole query equals the job number, the GUID
 * (case-insensitive) or, for operators, the account number.
 */
import type { Job, JobSummary } from '../../functions/jobs/model/model';
import type { SearchFieldId } from '../../functions/search/fields';
import type { InstantRange, SearchQuery } from '../../functions/search/search-index';
import type { TextFieldId } from '../../functions/search/query-text';
import { words } from '../../functions/search/text';
import { FIELD_TEXTS } from '../../test/support/field-texts';

const isTextField = (field: SearchFieldId): field is TextFieldId => Object.hasOwn(FIELD_TEXTS, field);

/** Thrown when the reference is asked about something it does not define. */
export class ReferenceDefinitionError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ReferenceDefinitionError';
  }
}

/** A job with its folded field words, computed the first time a search asks for them. */
export class ReferenceJob {
  public readonly job: Job;
  public readonly created: number;
  readonly #words = new Map<TextFieldId, readonly string[]>();

  public constructor(job: Job) {
    this.job = job;
    this.created = Date.parse(job.createdDate);
  }

  /** Every folded word of a text field's texts. */
  public wordsOf(field: TextFieldId): readonly string[] {
    let cached = this.#words.get(field);
    if (cached === undefined) {
      cached = FIELD_TEXTS[field](this.job).flatMap(words);
      this.#words.set(field, cached);
    }
    return cached;
  }
}

const DIGITS = /^[0-9]+$/;

/** The integer a whole query states (`"42"` → 42), or undefined when it is anything else. */
const integerOf = (text: string): number | undefined => (DIGITS.test(text) ? Number(text) : undefined);

/** Whether an instant lies in a half-open range `from ≤ t < to`. */
const within = (instant: number, range: InstantRange): boolean =>
  (range.from === undefined || instant >= range.from) && (range.to === undefined || instant < range.to);

/** Whether every query word is a prefix of some word of some of the fields. */
const everyWordPrefixes = (job: ReferenceJob, queryWords: readonly string[], fields: readonly TextFieldId[]): boolean =>
  queryWords.every((queryWord) =>
    fields.some((field) => job.wordsOf(field).some((fieldWord) => fieldWord.startsWith(queryWord))),
  );

/** A job's text test of a search: docs/contract.md §4's rules for the field and the query. */
type TextTest = (job: ReferenceJob) => boolean;

const textTestOf = (query: SearchQuery): TextTest => {
  const text = query.text.trim();
  if (text.length === 0) return () => true;
  const queryWords = words(text);
  const integer = integerOf(text);
  const guid = text.toLowerCase();
  switch (query.field) {
    case 'JobNumber':
      return (job) => job.job.id === integer;
    case 'AccountNumber':
      return (job) => job.job.accountId === integer;
    case 'Guid':
      return (job) => job.job.guid.toLowerCase() === guid;
    case 'Global': {
      const fields = query.globalFields.map((field) => {
        if (!isTextField(field)) throw new ReferenceDefinitionError(`Global lists the non-text field ${field}`);
        return field;
      });
      if (queryWords.length === 0) return () => true;
      return (job) =>
        job.job.id === integer ||
        job.job.guid.toLowerCase() === guid ||
        (query.globalMatchesAccountNumber && job.job.accountId === integer) ||
        (fields.length > 0 && everyWordPrefixes(job, queryWords, fields));
    }
    default: {
      const field = query.field;
      if (!isTextField(field)) throw new ReferenceDefinitionError(`No text definition for the field ${field}`);
      return (job) => everyWordPrefixes(job, queryWords, [field]);
    }
  }
};

/** Whether a search's filters (account, statuses, created and delivered ranges) keep a job. */
const filtersKeep = (query: SearchQuery, job: ReferenceJob): boolean => {
  const { accountId, status, deliveredDate } = job.job;
  if (query.accountId !== undefined && accountId !== query.accountId) return false;
  if (query.statuses !== undefined && query.statuses.length > 0 && !query.statuses.includes(status)) return false;
  if (query.created !== undefined && !within(job.created, query.created)) return false;
  if (query.delivered !== undefined && (deliveredDate === null || !within(Date.parse(deliveredDate), query.delivered)))
    return false;
  return true;
};

/**
 * The `capacity` greatest (createdDate, id) pairs offered so far: a binary min-heap whose root is the
 * pair the next greater one evicts. Pairs are kept as parallel number arrays.
 */
export class NewestHeap {
  readonly #capacity: number;
  readonly #created: number[] = [];
  readonly #ids: number[] = [];

  public constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Whether pair `a` sorts before pair `b` in result order reversed (older first, then lower id). */
  #less(a: number, b: number): boolean {
    const createdA = this.#created[a]!;
    const createdB = this.#created[b]!;
    return createdA < createdB || (createdA === createdB && this.#ids[a]! < this.#ids[b]!);
  }

  #swap(a: number, b: number): void {
    [this.#created[a], this.#created[b]] = [this.#created[b]!, this.#created[a]!];
    [this.#ids[a], this.#ids[b]] = [this.#ids[b]!, this.#ids[a]!];
  }

  #up(position: number): void {
    let child = position;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.#less(child, parent)) return;
      this.#swap(child, parent);
      child = parent;
    }
  }

  #down(position: number): void {
    const size = this.#ids.length;
    let parent = position;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < size && this.#less(left, smallest)) smallest = left;
      if (right < size && this.#less(right, smallest)) smallest = right;
      if (smallest === parent) return;
      this.#swap(parent, smallest);
      parent = smallest;
    }
  }

  /** Offers a pair; kept when the heap has room or the pair is newer than its oldest. */
  public offer(created: number, id: number): void {
    if (this.#capacity === 0) return;
    if (this.#ids.length < this.#capacity) {
      this.#created.push(created);
      this.#ids.push(id);
      this.#up(this.#ids.length - 1);
      return;
    }
    const rootCreated = this.#created[0]!;
    if (created < rootCreated || (created === rootCreated && id <= this.#ids[0]!)) return;
    this.#created[0] = created;
    this.#ids[0] = id;
    this.#down(0);
  }

  /** The kept ids in result order: `createdDate` newest first, then `id` descending. */
  public ordered(): number[] {
    return this.#ids
      .map((id, position) => ({ id, created: this.#created[position]! }))
      .sort((a, b) => b.created - a.created || b.id - a.id)
      .map((pair) => pair.id);
  }
}

/** What the reference says a search answers. */
export interface ReferenceAnswer {
  /** The exact number of matches. */
  total: number;
  /** The ids of the requested page, in result order. */
  pageIds: number[];
}

/** One search, evaluated against a stream of jobs. */
export class ReferenceSearch {
  public readonly query: SearchQuery;
  readonly #text: TextTest;
  readonly #heap: NewestHeap;
  #total = 0;

  public constructor(query: SearchQuery) {
    this.query = query;
    this.#text = textTestOf(query);
    this.#heap = new NewestHeap(query.offset + query.limit);
  }

  /** Counts the job and keeps it for the page when it matches. */
  public offer(job: ReferenceJob): void {
    if (!filtersKeep(this.query, job) || !this.#text(job)) return;
    this.#total += 1;
    this.#heap.offer(job.created, job.job.id);
  }

  /** The answer over every job offered. */
  public answer(): ReferenceAnswer {
    return { total: this.#total, pageIds: this.#heap.ordered().slice(this.query.offset) };
  }
}

/** The seed's job summary of a job, field by field (docs/contract.md §4), to compare with what search returns. */
export const expectedSummary = (job: Job): JobSummary => ({
  id: job.id,
  accountId: job.accountId,
  status: job.status,
  guid: job.guid,
  name: job.name,
  description: job.description,
  acceptedDate: job.acceptedDate,
  createdDate: job.createdDate,
  deliveredDate: job.deliveredDate,
  orderedDate: job.orderedDate,
  reviewedDate: job.reviewedDate,
  realCost: job.realCost,
  fileCount: job.files.length,
});
