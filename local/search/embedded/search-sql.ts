/**
 * Translates a {@link SearchQuery} into the embedded engine's statements: one page of summaries and the
 * exact total (a sum of counts). Every value is a bound parameter; the only text spliced into SQL is
 * fixed column names and `?` placeholders.
 *
 * Both the `jobs` table and the FTS5 index are keyed by the order key (`order-key.ts`), so every source
 * of matches is walked in result order and a page reads only `offset + limit` matches of each source:
 * - words: one FTS5 query whose MATCH carries the words and the account/status tokens, and whose
 *   rowid range is the created range;
 * - no text: the `jobs` rowid or an (account, status) index, one ordered walk per status, merged;
 * - exact values (job number, GUID, account number): an indexed lookup each, merged with the above.
 */
import type { SQLInputValue } from 'node:sqlite';
import { type ExactCondition, type TextCondition, textCondition } from '../../../functions/search/query-text';
import type { InstantRange, SearchQuery } from '../../../functions/search/search-index';
import { matchExpression, scopeExpression } from './match';
import { instantBound } from './order-key';
import type { Vocabulary } from './vocabulary';

/** A SQL text with its bound parameters. */
export interface Statement {
  sql: string;
  params: SQLInputValue[];
}

/**
 * The statements of a search, or `nothing` when no job can match (e.g. `JobNumber` = `abc`).
 * `counts` are summed for the total: their match sets never overlap. `page` reads the page walking
 * from the newest match down; `pageFor(total)`, once the exact total is known, reads it from whichever
 * end is cheaper (`undefined` when the page lies past the last match).
 */
export type SearchStatements =
  | { kind: 'nothing' }
  | { kind: 'run'; page: Statement; pageFor: (total: number) => Statement | undefined; counts: Statement[] };

/**
 * How much more a match costs walking down than walking up. FTS5 steps and seeks through its doclists
 * much faster in ascending rowid order: at 1.1M jobs, a file-name search with 28 matches in the large
 * account read its first page of 20 walking down in 4.5–6 ms and all 28 matches walking up in 1.8 ms
 * (≈ 4× per match); a word with 73 matches, 1.5 ms down for 20 against 1.9 ms up for 73 (≈ 3×).
 * Counted conservatively as 2.
 */
export const DOWNWARD_STEP_COST = 2;

/**
 * Whether a page is cheaper read from the oldest match up: walking down reads `offset + limit`
 * matches, walking up `total - offset`.
 */
export const readsUpward = (query: SearchQuery, total: number): boolean =>
  total - query.offset <= DOWNWARD_STEP_COST * (query.offset + query.limit);

/** WHERE clauses over `jobs j` with their parameters. */
interface Conditions {
  clauses: string[];
  params: SQLInputValue[];
}

const EXACT_COLUMN: Record<ExactCondition['field'], string> = { jobId: 'id', accountId: 'account_id', guid: 'guid' };

const where = (clauses: readonly string[]): string => (clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`);

const merge = (...parts: Conditions[]): Conditions => ({
  clauses: parts.flatMap((part) => part.clauses),
  params: parts.flatMap((part) => part.params),
});

/** A created range as bounds of the order key (`column` is `j.ord` or `jobs_text.rowid`), else on `created`. */
const createdClauses = (range: InstantRange | undefined, column: string): { keyed: Conditions; joined: Conditions } => {
  const keyed: Conditions = { clauses: [], params: [] };
  const joined: Conditions = { clauses: [], params: [] };
  if (range === undefined) return { keyed, joined };
  const bound = (instant: number, keyOperator: string, createdOperator: string): void => {
    const key = instantBound(instant);
    if (key === undefined) {
      joined.clauses.push(`j.created ${createdOperator} ?`);
      joined.params.push(instant);
    } else {
      keyed.clauses.push(`${column} ${keyOperator} ?`);
      keyed.params.push(key);
    }
  };
  if (range.from !== undefined) bound(range.from, '>=', '>=');
  if (range.to !== undefined) bound(range.to, '<', '<');
  return { keyed, joined };
};

/** The delivered range: a job without a delivered date never matches it. */
const deliveredClauses = (range: InstantRange | undefined): Conditions => {
  const conditions: Conditions = { clauses: [], params: [] };
  if (range === undefined) return conditions;
  conditions.clauses.push('j.delivered IS NOT NULL');
  if (range.from !== undefined) {
    conditions.clauses.push('j.delivered >= ?');
    conditions.params.push(range.from);
  }
  if (range.to !== undefined) {
    conditions.clauses.push('j.delivered < ?');
    conditions.params.push(range.to);
  }
  return conditions;
};

const accountClauses = (query: SearchQuery): Conditions =>
  query.accountId === undefined
    ? { clauses: [], params: [] }
    : { clauses: ['j.account_id = ?'], params: [query.accountId] };

const statusClauses = (statuses: readonly string[] | undefined): Conditions =>
  statuses === undefined || statuses.length === 0
    ? { clauses: [], params: [] }
    : { clauses: [`j.status IN (${statuses.map(() => '?').join(', ')})`], params: [...statuses] };

/** Every filter of a search as clauses over `jobs j`. */
const jobFilters = (query: SearchQuery, statuses = query.statuses): Conditions => {
  const created = createdClauses(query.created, 'j.ord');
  return merge(
    accountClauses(query),
    statusClauses(statuses),
    created.keyed,
    created.joined,
    deliveredClauses(query.delivered),
  );
};

/** An ordered source of order keys (`SELECT … AS ord … ORDER BY … DESC`) and how to count it. */
interface Source {
  rows: Statement;
  count: Statement;
}

/**
 * Jobs matching words (their MATCH expression) and filters: one FTS5 walk, joined to `jobs` only for
 * filters FTS5 cannot hold.
 */
const wordsSource = (query: SearchQuery, wordsMatch: string): Source => {
  const match = [wordsMatch, scopeExpression(query)].filter((part) => part !== undefined).join(' AND ');
  const created = createdClauses(query.created, 'jobs_text.rowid');
  const joined = merge(created.joined, deliveredClauses(query.delivered));
  const from = joined.clauses.length === 0 ? 'jobs_text' : 'jobs_text JOIN jobs j ON j.ord = jobs_text.rowid';
  const conditions = merge({ clauses: ['jobs_text MATCH ?'], params: [match] }, created.keyed, joined);
  return {
    rows: {
      sql: `SELECT jobs_text.rowid AS ord FROM ${from}${where(conditions.clauses)} ORDER BY jobs_text.rowid DESC`,
      params: conditions.params,
    },
    count: { sql: `SELECT count(*) AS total FROM ${from}${where(conditions.clauses)}`, params: conditions.params },
  };
};

/** Jobs matching filters (and an extra condition) in one walk of `jobs` or one of its indexes. */
const jobsSource = (conditions: Conditions): Statement => ({
  sql: `SELECT j.ord AS ord FROM jobs j${where(conditions.clauses)} ORDER BY j.ord DESC`,
  params: conditions.params,
});

/**
 * Ordered sources merged into one page: a single source is paged directly; several are each cut to
 * `offset + limit` rows and merged (`UNION` drops a job two sources both find).
 */
const pageOf = (sources: readonly Statement[], query: SearchQuery): Statement => {
  const window = query.offset + query.limit;
  const [only] = sources;
  const keys: Statement =
    sources.length === 1 && only !== undefined
      ? { sql: `${only.sql} LIMIT ? OFFSET ?`, params: [...only.params, query.limit, query.offset] }
      : {
          sql: `${sources.map((source) => `SELECT ord FROM (${source.sql} LIMIT ?)`).join(' UNION ')} ORDER BY ord DESC LIMIT ? OFFSET ?`,
          params: [...sources.flatMap((source) => [...source.params, window]), query.limit, query.offset],
        };
  return {
    sql:
      `WITH page AS (${keys.sql})` +
      " SELECT json_extract(d.document, '$.summary') AS summary FROM page" +
      ' JOIN jobs j ON j.ord = page.ord JOIN documents d ON d.id = j.id ORDER BY page.ord DESC',
    params: keys.params,
  };
};

/**
 * The page of a search whose exact total is known, walked upwards: the rows `total - offset - limit …
 * total - offset` of the ascending order, returned newest first. Each source is read up to the page's
 * end, merged by `UNION` as in {@link pageOf} (the sources never overlap: the counts are exact).
 */
const tailPageOf = (sources: readonly Statement[], query: SearchQuery, total: number): Statement | undefined => {
  const end = total - query.offset;
  if (end <= 0) return undefined;
  const start = Math.max(0, end - query.limit);
  const ascending = (sql: string): string => sql.replace(/ DESC$/, ' ASC');
  const [only] = sources;
  const keys: Statement =
    sources.length === 1 && only !== undefined
      ? { sql: `${ascending(only.sql)} LIMIT ? OFFSET ?`, params: [...only.params, end - start, start] }
      : {
          sql: `${sources.map((source) => `SELECT ord FROM (${ascending(source.sql)} LIMIT ?)`).join(' UNION ')} ORDER BY ord ASC LIMIT ? OFFSET ?`,
          params: [...sources.flatMap((source) => [...source.params, end]), end - start, start],
        };
  return {
    sql:
      `WITH page AS (${keys.sql})` +
      " SELECT json_extract(d.document, '$.summary') AS summary FROM page" +
      ' JOIN jobs j ON j.ord = page.ord JOIN documents d ON d.id = j.id ORDER BY page.ord DESC',
    params: keys.params,
  };
};

/** A search without text: the per-account/status counts when no date filters, else a count over `jobs`. */
const unfiltered = (query: SearchQuery): { sources: Statement[]; counts: Statement[] } => {
  const statuses = query.statuses ?? [];
  const sources =
    statuses.length > 1
      ? statuses.map((status) => jobsSource(jobFilters(query, [status])))
      : [jobsSource(jobFilters(query))];
  if (query.created === undefined && query.delivered === undefined) {
    const scope: Conditions = merge(
      query.accountId === undefined
        ? { clauses: [], params: [] }
        : { clauses: ['account_id = ?'], params: [query.accountId] },
      statuses.length === 0
        ? { clauses: [], params: [] }
        : { clauses: [`status IN (${statuses.map(() => '?').join(', ')})`], params: [...statuses] },
    );
    return {
      sources,
      counts: [
        { sql: `SELECT coalesce(sum(jobs), 0) AS total FROM counts${where(scope.clauses)}`, params: scope.params },
      ],
    };
  }
  const filters = jobFilters(query);
  return {
    sources,
    counts: [{ sql: `SELECT count(*) AS total FROM jobs j${where(filters.clauses)}`, params: filters.params }],
  };
};

/**
 * A text search: the words source (if any) and one lookup per exact value. The exact values are counted
 * together, less the jobs the words already match, so the sum of the counts is exact. The page and the
 * counts use the same words expression, so they count the same matches.
 */
const textual = (
  query: SearchQuery,
  text: Extract<TextCondition, { kind: 'some' }>,
  vocabulary: Vocabulary | undefined,
): { sources: Statement[]; counts: Statement[] } => {
  const sources: Statement[] = [];
  const counts: Statement[] = [];
  const wordsMatch = text.words === undefined ? undefined : matchExpression(text.words, vocabulary);
  if (wordsMatch !== undefined) {
    const words = wordsSource(query, wordsMatch);
    sources.push(words.rows);
    counts.push(words.count);
  }
  if (text.exact.length > 0) {
    const filters = jobFilters(query);
    for (const exact of text.exact) {
      sources.push(
        jobsSource(merge({ clauses: [`j.${EXACT_COLUMN[exact.field]} = ?`], params: [exact.value] }, filters)),
      );
    }
    const anyExact: Conditions = {
      clauses: [`(${text.exact.map((exact) => `j.${EXACT_COLUMN[exact.field]} = ?`).join(' OR ')})`],
      params: text.exact.map((exact) => exact.value),
    };
    const notWords: Conditions =
      wordsMatch === undefined
        ? { clauses: [], params: [] }
        : {
            clauses: ['NOT EXISTS (SELECT 1 FROM jobs_text WHERE jobs_text MATCH ? AND jobs_text.rowid = j.ord)'],
            params: [wordsMatch],
          };
    const conditions = merge(anyExact, filters, notWords);
    counts.push({ sql: `SELECT count(*) AS total FROM jobs j${where(conditions.clauses)}`, params: conditions.params });
  }
  return { sources, counts };
};

/**
 * Builds the page and count statements of a search. With the index's vocabulary, words are expanded
 * into the indexed terms they prefix (see `match.ts`); without it they stay prefix terms.
 */
export const searchStatements = (query: SearchQuery, vocabulary?: Vocabulary): SearchStatements => {
  const text = textCondition(query);
  if (text.kind === 'some' && text.words === undefined && text.exact.length === 0) return { kind: 'nothing' };
  const { sources, counts } = text.kind === 'all' ? unfiltered(query) : textual(query, text, vocabulary);
  if (sources.length === 0) return { kind: 'nothing' };
  return {
    kind: 'run',
    page: pageOf(sources, query),
    pageFor: (total) => (readsUpward(query, total) ? tailPageOf(sources, query, total) : pageOf(sources, query)),
    counts,
  };
};
