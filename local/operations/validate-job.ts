/**
 * Validates a job from outside (an import line, demo data) against the shape of docs/contract.md §6 and
 * normalises it: datetimes become ISO 8601 UTC with milliseconds, optional fields get their defaults,
 * unknown fields are dropped. Every problem names the field it is about (`files[2].reviewDate`).
 */
import {
  isJobStatus,
  JOB_STATUSES,
  type Job,
  type JobFile,
  type Position,
  type RejectReason,
  type Review,
} from '../../functions/jobs/model/model';
import { isId, MAX_ID, MIN_ID } from '../../functions/jobs/model/ids';

/** A job (or one of its fields) does not have the shape of docs/contract.md §6. */
export class JobValidationError extends Error {
  /** The path of the offending field, like `files[2].reviewDate`; `job` for the value as a whole. */
  public readonly field: string;

  public constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = 'JobValidationError';
    this.field = field;
  }
}

type Fields = Record<string, unknown>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;

const isLeapYear = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);

/**
 * Parses an ISO 8601 datetime with `Z` or a `±hh:mm` offset and 0–9 fractional digits, or a date alone
 * (midnight UTC), to epoch milliseconds (fractions beyond the millisecond are cut). Undefined when the
 * text is not such a datetime or names an impossible date or time.
 */
export const parseIsoDatetime = (text: string): number | undefined => {
  const match = DATETIME.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (h !== undefined && zone === undefined) return undefined;
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const hours = Number(oh);
    const minutes = Number(om);
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
};

const describe = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'string'
        ? 'a string'
        : `a ${typeof value}`;

const fail = (field: string, problem: string, value: unknown): never => {
  throw new JobValidationError(field, `${problem} (got ${describe(value)})`);
};

const object = (value: unknown, field: string): Fields => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(field, 'must be an object', value);
  return value as Fields;
};

/** A job or file id, in the one id range of `ids.ts`. */
const id = (value: unknown, field: string): number => {
  if (!isId(value)) return fail(field, `must be an integer from ${MIN_ID} to ${MAX_ID}`, value);
  return value;
};

const integer = (value: unknown, field: string, min: number): number => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    return fail(field, `must be an integer ≥ ${min}`, value);
  }
  return value;
};

const string = (value: unknown, field: string, options: { fallback?: string; nonEmpty?: boolean } = {}): string => {
  if (value === undefined && options.fallback !== undefined) return options.fallback;
  if (typeof value !== 'string') return fail(field, 'must be a string', value);
  if (options.nonEmpty === true && value.trim().length === 0) return fail(field, 'must not be empty', value);
  return value;
};

const nullableString = (value: unknown, field: string): string | null =>
  value === undefined || value === null ? null : string(value, field);

const boolean = (value: unknown, field: string): boolean => {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') return fail(field, 'must be true or false', value);
  return value;
};

const number = (value: unknown, field: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail(field, 'must be a finite number', value);
  return value;
};

const list = <T>(value: unknown, field: string, item: (value: unknown, field: string) => T): T[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(field, 'must be an array', value);
  return value.map((element, index) => item(element, `${field}[${index}]`));
};

const datetime = (value: unknown, field: string): string => {
  const epoch = typeof value === 'string' ? parseIsoDatetime(value) : undefined;
  if (epoch === undefined) {
    return fail(field, 'must be an ISO 8601 datetime with Z or an offset, or a date (YYYY-MM-DD)', value);
  }
  return new Date(epoch).toISOString();
};

const nullableDatetime = (value: unknown, field: string): string | null =>
  value === undefined || value === null ? null : datetime(value, field);

const coordinate = (value: unknown, field: string): number => {
  const result = number(value, field);
  if (result < 0 || result > 1) return fail(field, 'must be a number in [0, 1]', value);
  return result;
};

const position = (value: unknown, field: string): Position => {
  const fields = object(value, field);
  return {
    xPercent: coordinate(fields.xPercent, `${field}.xPercent`),
    yPercent: coordinate(fields.yPercent, `${field}.yPercent`),
  };
};

const rejectReason = (value: unknown, field: string): RejectReason => {
  const fields = object(value, field);
  return {
    reason: string(fields.reason, `${field}.reason`),
    positions: list(fields.positions, `${field}.positions`, position),
  };
};

const review = (value: unknown, field: string): Review => {
  const fields = object(value, field);
  return {
    customRejection: nullableString(fields.customRejection, `${field}.customRejection`),
    rejects: list(fields.rejects, `${field}.rejects`, rejectReason),
    reviewDate: datetime(fields.reviewDate, `${field}.reviewDate`),
  };
};

const file = (value: unknown, field: string): JobFile => {
  const fields = object(value, field);
  return {
    id: id(fields.id, `${field}.id`),
    fileName: string(fields.fileName, `${field}.fileName`, { nonEmpty: true }),
    tags: list(fields.tags, `${field}.tags`, (tag, path) => string(tag, path)),
    remarkToProcessor: string(fields.remarkToProcessor ?? undefined, `${field}.remarkToProcessor`, { fallback: '' }),
    acceptedByUser: boolean(fields.acceptedByUser, `${field}.acceptedByUser`),
    isRejected: boolean(fields.isRejected, `${field}.isRejected`),
    isReviewed: boolean(fields.isReviewed, `${field}.isReviewed`),
    rejectionReason: nullableString(fields.rejectionReason, `${field}.rejectionReason`),
    reviewDate: nullableDatetime(fields.reviewDate, `${field}.reviewDate`),
    reviews:
      fields.reviews === undefined || fields.reviews === null ? null : review(fields.reviews, `${field}.reviews`),
    previousReviews: list(fields.previousReviews, `${field}.previousReviews`, review),
  };
};

const status = (value: unknown): Job['status'] => {
  if (!isJobStatus(value)) return fail('status', `must be one of ${JOB_STATUSES.join(', ')}`, value);
  return value;
};

const guid = (value: unknown): string => {
  if (typeof value !== 'string' || !GUID.test(value))
    return fail('guid', 'must be a UUID (8-4-4-4-12 hex digits)', value);
  return value.toLowerCase();
};

/**
 * Checks a value against the job shape of docs/contract.md §6 and returns the normalised job. Required:
 * `id`, `accountId`, `status`, `guid`, `name`, `realCost`, `createdDate`; the rest default to empty
 * text, empty lists, `false` and `null` dates. A `fileCount`, when given, must equal the number of files.
 *
 * @throws {JobValidationError} naming the first offending field.
 */
export const validateJob = (value: unknown): Job => {
  const fields = object(value, 'job');
  const jobId = id(fields.id, 'id');
  const accountId = integer(fields.accountId, 'accountId', 0);
  const accountName = string(fields.accountName ?? undefined, 'accountName', { fallback: '' });
  const jobStatus = status(fields.status);
  const jobGuid = guid(fields.guid);
  const name = string(fields.name, 'name');
  const description = string(fields.description ?? undefined, 'description', { fallback: '' });
  const invoiceReference = string(fields.invoiceReference ?? undefined, 'invoiceReference', { fallback: '' });
  const tags = list(fields.tags, 'tags', (tag, path) => string(tag, path));
  const realCost = number(fields.realCost, 'realCost');
  const createdDate = datetime(fields.createdDate, 'createdDate');
  const acceptedDate = nullableDatetime(fields.acceptedDate, 'acceptedDate');
  const orderedDate = nullableDatetime(fields.orderedDate, 'orderedDate');
  const deliveredDate = nullableDatetime(fields.deliveredDate, 'deliveredDate');
  const reviewedDate = nullableDatetime(fields.reviewedDate, 'reviewedDate');
  const files = list(fields.files, 'files', file);
  const seen = new Set<number>();
  files.forEach((jobFile, index) => {
    if (seen.has(jobFile.id)) fail(`files[${index}].id`, `repeats file id ${jobFile.id}`, jobFile.id);
    seen.add(jobFile.id);
  });
  if (fields.fileCount !== undefined && fields.fileCount !== files.length) {
    fail('fileCount', `must equal the number of files (${files.length})`, fields.fileCount);
  }
  return {
    id: jobId,
    accountId,
    accountName,
    status: jobStatus,
    guid: jobGuid,
    name,
    description,
    invoiceReference,
    tags,
    realCost,
    createdDate,
    acceptedDate,
    orderedDate,
    deliveredDate,
    reviewedDate,
    files,
  };
};
