/**
 * POST /search request → typed search criteria → the engine's {@link SearchQuery}.
 *
 * One parser serves JSON and form bodies: `coerceFields` (http/schema-validation) coerces form strings
 * (JSON `null` and an empty form value for a typed parameter count as absent), the validator generated
 * from openapi.yaml's `SearchRequest` checks types and limits, and the rules a schema cannot express
 * follow here (the field by role, the 32-word cap, the result window, real calendar dates, date order).
 * Every violation is `400 invalid_parameter` naming the parameter. Parameters are checked in the order of
 * docs/contract.md §4's table (the schema's property order), so when several are wrong the first of
 * `field, query, page, pageSize, statuses, dateFrom, dateTo, deliveredDateFrom, deliveredDateTo` is named.
 */
import { accountScope, type Principal } from '../auth/principal';
import { invalidParameter } from './errors';
import { searchRequestFields, validateSearchRequest } from './generated/request-validators';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';
import type { JobStatus } from '../jobs/model/model';
import { type PreciseInstant, boundMillis, compareInstants, parseDateTime } from '../search/datetime';
import { fieldAllowedFor, globalTextFieldsFor, resolveField, SEARCH_FIELDS, type SearchField } from '../search/fields';
import { MAX_QUERY_WORDS, significantWords } from '../search/query-text';
import type { InstantRange, SearchQuery } from '../search/search-index';
import { words } from '../search/text';

/**
 * Limits of a search request (docs/contract.md §4) that the code applies; the query's length and the
 * page size's bounds are in openapi.yaml's `SearchRequest`.
 */
export const SEARCH_LIMITS = {
  defaultPageSize: 20,
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

/** The body parameters in the schema's (and the contract table's) order. */
const PARAMETERS = Object.keys(searchRequestFields) as SearchParameter[];

const DATETIME_MESSAGE =
  'must be an ISO 8601 datetime with Z or an offset (2016-01-14T14:57:33.893+01:00), or a date (2016-01-14).';

const isDateParameter = (parameter: string): boolean =>
  parameter.startsWith('date') || parameter.startsWith('delivered');

/**
 * Runs the schema's checks and hands back a gate for the rules it cannot express: `through(name)` throws
 * the schema's refusal when it names `name` or a parameter before it, so every rule runs in the contract's
 * parameter order, after the schema checks of the parameters it reads.
 */
const schemaGate = (fields: Record<string, unknown>): ((parameter: SearchParameter) => void) => {
  if (validateSearchRequest(fields)) return () => undefined;
  const refusal = invalidParameterOf(validateSearchRequest.errors, 'top', (parameter, error) =>
    isDateParameter(parameter) && error.keyword !== 'type' ? `${parameter} ${DATETIME_MESSAGE}` : undefined,
  );
  const refusedAt = PARAMETERS.indexOf(refusal.context.parameter as SearchParameter);
  return (parameter) => {
    if (refusedAt <= PARAMETERS.indexOf(parameter)) throw refusal;
  };
};

const readField = (value: string | undefined, role: Principal['role']): SearchField => {
  if (value === undefined) return GLOBAL;
  const field = resolveField(value, role);
  if (field === undefined) throw invalidParameter('field', `field must be one of the ids of GET /search/fields.`);
  return field;
};

const checkQueryWords = (query: string): void => {
  if (significantWords(words(query)).length > MAX_QUERY_WORDS) {
    throw invalidParameter(
      'query',
      `query may hold at most ${MAX_QUERY_WORDS} different words (repeated words and words that start another word of the query do not count).`,
    );
  }
};

const checkResultWindow = (page: number, pageSize: number): void => {
  if ((page + 1) * pageSize > SEARCH_LIMITS.maxResultWindow) {
    throw invalidParameter(
      'page',
      `(page + 1) × pageSize may be at most ${SEARCH_LIMITS.maxResultWindow}; narrow the search instead.`,
    );
  }
};

/** Distinct statuses in request order; `undefined` (every status) for none. */
const distinctStatuses = (values: JobStatus[] | undefined): JobStatus[] | undefined =>
  values === undefined || values.length === 0 ? undefined : [...new Set(values)];

/** A datetime the schema's pattern admitted; the calendar (`2016-02-30`) is checked here. */
const readDateTime = (text: string | undefined, name: SearchParameter): PreciseInstant | undefined => {
  if (text === undefined) return undefined;
  const instant = parseDateTime(text);
  if (instant === undefined) throw invalidParameter(name, `${name} ${DATETIME_MESSAGE}`);
  return instant;
};

const readRange = (
  fields: SearchFields,
  through: (parameter: SearchParameter) => void,
  fromName: 'dateFrom' | 'deliveredDateFrom',
  toName: 'dateTo' | 'deliveredDateTo',
): DateRange => {
  through(fromName);
  const from = readDateTime(fields[fromName], fromName);
  through(toName);
  const to = readDateTime(fields[toName], toName);
  if (from !== undefined && to !== undefined && compareInstants(from, to) > 0) {
    throw invalidParameter(toName, `${toName} may not be earlier than ${fromName}.`);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
};

/** A search body after coercion; each value holds its schema type once the schema admitted it. */
interface SearchFields {
  field?: string;
  query?: string;
  page?: number;
  pageSize?: number;
  statuses?: JobStatus[];
  dateFrom?: string;
  dateTo?: string;
  deliveredDateFrom?: string;
  deliveredDateTo?: string;
}

/**
 * Reads and validates a search request body for a caller. The `parse` function of the POST /search
 * endpoint.
 *
 * @throws {ApiError} `invalid_parameter` naming the first offending parameter.
 */
export const parseSearchCriteria = (body: RequestBody, principal: Pick<Principal, 'role'>): SearchCriteria => {
  const coerced = coerceFields(body, searchRequestFields);
  const through = schemaGate(coerced);
  const fields = coerced as SearchFields;
  through('field');
  const field = readField(fields.field, principal.role);
  through('query');
  const query = fields.query ?? '';
  checkQueryWords(query);
  through('pageSize');
  const page = fields.page ?? 0;
  const pageSize = fields.pageSize ?? SEARCH_LIMITS.defaultPageSize;
  checkResultWindow(page, pageSize);
  through('statuses');
  const statuses = distinctStatuses(fields.statuses);
  const created = readRange(fields, through, 'dateFrom', 'dateTo');
  const delivered = readRange(fields, through, 'deliveredDateFrom', 'deliveredDateTo');
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
