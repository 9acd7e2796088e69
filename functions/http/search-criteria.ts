/**
 * POST /search request → typed search criteria → the engine's {@link SearchQuery}.
 *
 * One parser serves JSON and form bodies (the body readers of `http/body-fields` coerce form strings:
 * JSON `null` and an empty form value for a typed parameter count as absent); every violation is
 * `400 invalid_parameter` naming the parameter. Parameters are checked in the order of docs/contract.md §4's
 * table, so when several are wrong the first of `field, query, page, pageSize, statuses, dateFrom,
 * dateTo, deliveredDateFrom, deliveredDateTo` is named.
 */
import { accountScope, type Principal } from '../auth/principal';
import { optionalInteger, optionalString, optionalStringList } from './body-fields';
import { invalidParameter } from './errors';
import type { RequestBody } from './request';
import { isJobStatus, JOB_STATUSES, type JobStatus } from '../jobs/model';
import { type PreciseInstant, boundMillis, compareInstants, parseDateTime } from '../search/datetime';
import { fieldAllowedFor, globalTextFieldsFor, resolveField, SEARCH_FIELDS, type SearchField } from '../search/fields';
import { MAX_QUERY_WORDS, significantWords } from '../search/query-text';
import type { InstantRange, SearchQuery } from '../search/search-index';
import { words } from '../search/text';

/** Limits of a search request (docs/contract.md §4). */
export const SEARCH_LIMITS = {
  /** Longest `query`, in characters (Unicode code points). */
  maxQueryLength: 500,
  defaultPageSize: 20,
  maxPageSize: 100,
  /** `(page + 1) × pageSize` may not exceed this: no result beyond the 10 000th is ever served. */
  maxResultWindow: 10_000,
} as const;

/** The names of the body parameters, as the API and its error bodies spell them. */
export type SearchParameter =
  | 'field'
  | 'query'
  | 'page'
  | 'pageSize'
  | 'statuses'
  | 'dateFrom'
  | 'dateTo'
  | 'deliveredDateFrom'
  | 'deliveredDateTo';

/** A validated, half-open datetime range `from ≤ t < to`; either bound may be absent. */
export interface DateRange {
  from?: PreciseInstant;
  to?: PreciseInstant;
}

/** A validated search request, before it is scoped to the caller. */
export interface SearchCriteria {
  /** The field to search, already checked against the caller's role. */
  field: SearchField;
  /** The query text as sent; empty means no text condition. */
  query: string;
  /** Zero-based page number. */
  page: number;
  pageSize: number;
  /** Distinct statuses in request order; `undefined` means every status. */
  statuses?: JobStatus[];
  created: DateRange;
  delivered: DateRange;
}

const GLOBAL = SEARCH_FIELDS.find((field) => field.id === 'Global')!;
const ACCOUNT_NUMBER = SEARCH_FIELDS.find((field) => field.id === 'AccountNumber')!;

const readField = (body: RequestBody, role: Principal['role']): SearchField => {
  const value = optionalString(body, 'field');
  if (value === undefined) return GLOBAL;
  const field = resolveField(value, role);
  if (field === undefined) throw invalidParameter('field', `field must be one of the ids of GET /search/fields.`);
  return field;
};

const readQuery = (body: RequestBody): string => {
  const query = optionalString(body, 'query', { maxLength: SEARCH_LIMITS.maxQueryLength }) ?? '';
  if (significantWords(words(query)).length > MAX_QUERY_WORDS) {
    throw invalidParameter(
      'query',
      `query may hold at most ${MAX_QUERY_WORDS} different words (repeated words and words that start another word of the query do not count).`,
    );
  }
  return query;
};

const readPaging = (body: RequestBody): { page: number; pageSize: number } => {
  const page = optionalInteger(body, 'page', { min: 0 }) ?? 0;
  const pageSize =
    optionalInteger(body, 'pageSize', { min: 1, max: SEARCH_LIMITS.maxPageSize }) ?? SEARCH_LIMITS.defaultPageSize;
  if ((page + 1) * pageSize > SEARCH_LIMITS.maxResultWindow) {
    throw invalidParameter(
      'page',
      `(page + 1) × pageSize may be at most ${SEARCH_LIMITS.maxResultWindow}; narrow the search instead.`,
    );
  }
  return { page, pageSize };
};

const readStatuses = (body: RequestBody): JobStatus[] | undefined => {
  const values = optionalStringList(body, 'statuses');
  if (values === undefined || values.length === 0) return undefined;
  const statuses: JobStatus[] = [];
  for (const value of values) {
    if (!isJobStatus(value)) {
      throw invalidParameter('statuses', `Every status must be one of ${JOB_STATUSES.join(', ')}.`);
    }
    if (!statuses.includes(value)) statuses.push(value);
  }
  return statuses;
};

/** A datetime; like the other typed values, an empty form value counts as absent. */
const readDateTime = (body: RequestBody, name: SearchParameter): PreciseInstant | undefined => {
  const text = optionalString(body, name);
  if (text === undefined || (text === '' && body.encoding === 'form')) return undefined;
  const instant = parseDateTime(text);
  if (instant === undefined) {
    throw invalidParameter(
      name,
      `${name} must be an ISO 8601 datetime with Z or an offset (2016-01-14T14:57:33.893+01:00), or a date (2016-01-14).`,
    );
  }
  return instant;
};

const readRange = (body: RequestBody, fromName: SearchParameter, toName: SearchParameter): DateRange => {
  const from = readDateTime(body, fromName);
  const to = readDateTime(body, toName);
  if (from !== undefined && to !== undefined && compareInstants(from, to) > 0) {
    throw invalidParameter(toName, `${toName} may not be earlier than ${fromName}.`);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
};

/**
 * Reads and validates a search request body for a caller. The `parse` function of the POST /search
 * endpoint.
 *
 * @throws {ApiError} `invalid_parameter` naming the first offending parameter.
 */
export const parseSearchCriteria = (body: RequestBody, principal: Pick<Principal, 'role'>): SearchCriteria => {
  const field = readField(body, principal.role);
  const query = readQuery(body);
  const { page, pageSize } = readPaging(body);
  const statuses = readStatuses(body);
  const created = readRange(body, 'dateFrom', 'dateTo');
  const delivered = readRange(body, 'deliveredDateFrom', 'deliveredDateTo');
  return { field, query, page, pageSize, ...(statuses === undefined ? {} : { statuses }), created, delivered };
};

const toInstantRange = (range: DateRange): InstantRange | undefined => {
  if (range.from === undefined && range.to === undefined) return undefined;
  return {
    ...(range.from === undefined ? {} : { from: boundMillis(range.from) }),
    ...(range.to === undefined ? {} : { to: boundMillis(range.to) }),
  };
};

/**
 * The engine query of validated criteria for a caller: a user is confined to its own account, an
 * operator searches every account; a Global search covers the text fields the caller's role may use.
 */
export const toSearchQuery = (
  criteria: SearchCriteria,
  principal: Pick<Principal, 'role' | 'accountId'>,
): SearchQuery => {
  const accountId = accountScope(principal);
  const created = toInstantRange(criteria.created);
  const delivered = toInstantRange(criteria.delivered);
  return {
    field: criteria.field.id,
    text: criteria.query,
    globalFields: globalTextFieldsFor(principal.role),
    globalMatchesAccountNumber: fieldAllowedFor(ACCOUNT_NUMBER, principal.role),
    ...(accountId === undefined ? {} : { accountId }),
    ...(criteria.statuses === undefined ? {} : { statuses: criteria.statuses }),
    ...(created === undefined ? {} : { created }),
    ...(delivered === undefined ? {} : { delivered }),
    offset: criteria.page * criteria.pageSize,
    limit: criteria.pageSize,
  };
};
