/**
 * Translates a {@link SearchQuery} into the embedded engine's two statements: one page of summaries and
 * the exact total. Every value is a bound parameter; the only text spliced into SQL is fixed column
 * names and `?` placeholders.
 */
import type { SQLInputValue } from 'node:sqlite';
import { type ExactCondition, type TextCondition, textCondition } from '../query-text';
import type { SearchQuery } from '../search-index';
import { matchExpression } from './match';

/** A SQL text with its bound parameters. */
export interface Statement {
  sql: string;
  params: SQLInputValue[];
}

/** The statements of a search, or `nothing` when no job can match (e.g. `JobNumber` = `abc`). */
export type SearchStatements = { kind: 'nothing' } | { kind: 'run'; page: Statement; count: Statement };

interface Conditions {
  clauses: string[];
  params: SQLInputValue[];
}

const EXACT_COLUMN: Record<ExactCondition['field'], string> = { jobId: 'id', accountId: 'account_id', guid: 'guid' };

/** The `j.id IN (…)` (or direct) condition of a text condition that can match something. */
const textClause = (condition: Extract<TextCondition, { kind: 'some' }>): Statement => {
  const [only] = condition.exact;
  if (condition.words === undefined && condition.exact.length === 1 && only !== undefined) {
    return { sql: `j.${EXACT_COLUMN[only.field]} = ?`, params: [only.value] };
  }
  const sources: Statement[] = [];
  if (condition.words !== undefined) {
    sources.push({
      sql: 'SELECT rowid FROM jobs_text WHERE jobs_text MATCH ?',
      params: [matchExpression(condition.words)],
    });
  }
  for (const exact of condition.exact) {
    sources.push({ sql: `SELECT id FROM jobs WHERE ${EXACT_COLUMN[exact.field]} = ?`, params: [exact.value] });
  }
  return {
    sql: `j.id IN (${sources.map((source) => source.sql).join(' UNION ')})`,
    params: sources.flatMap((source) => source.params),
  };
};

const rangeClauses = (column: string, range: { from?: number; to?: number }, conditions: Conditions): void => {
  if (range.from !== undefined) {
    conditions.clauses.push(`j.${column} >= ?`);
    conditions.params.push(range.from);
  }
  if (range.to !== undefined) {
    conditions.clauses.push(`j.${column} < ?`);
    conditions.params.push(range.to);
  }
};

/** The account and status filters, shared by the jobs query and the counts shortcut. */
const scopeClauses = (query: SearchQuery, prefix: string): Conditions => {
  const conditions: Conditions = { clauses: [], params: [] };
  if (query.accountId !== undefined) {
    conditions.clauses.push(`${prefix}account_id = ?`);
    conditions.params.push(query.accountId);
  }
  if (query.statuses !== undefined && query.statuses.length > 0) {
    conditions.clauses.push(`${prefix}status IN (${query.statuses.map(() => '?').join(', ')})`);
    conditions.params.push(...query.statuses);
  }
  return conditions;
};

const where = (conditions: Conditions): string =>
  conditions.clauses.length === 0 ? '' : ` WHERE ${conditions.clauses.join(' AND ')}`;

/** Builds the page and count statements of a search. */
export const searchStatements = (query: SearchQuery): SearchStatements => {
  const text = textCondition(query);
  if (text.kind === 'some' && text.words === undefined && text.exact.length === 0) return { kind: 'nothing' };

  const conditions = scopeClauses(query, 'j.');
  if (query.created !== undefined) rangeClauses('created', query.created, conditions);
  if (query.delivered !== undefined) {
    conditions.clauses.push('j.delivered IS NOT NULL');
    rangeClauses('delivered', query.delivered, conditions);
  }
  if (text.kind === 'some') {
    const clause = textClause(text);
    conditions.clauses.push(clause.sql);
    conditions.params.push(...clause.params);
  }

  const page: Statement = {
    sql:
      `WITH page AS (SELECT j.id, j.created FROM jobs j${where(conditions)}` +
      ' ORDER BY j.created DESC, j.id DESC LIMIT ? OFFSET ?)' +
      " SELECT json_extract(documents.document, '$.summary') AS summary FROM page" +
      ' JOIN documents ON documents.id = page.id' +
      ' ORDER BY page.created DESC, page.id DESC',
    params: [...conditions.params, query.limit, query.offset],
  };

  return { kind: 'run', page, count: countStatement(query, text, conditions) };
};

/**
 * The cheapest exact count: from the per-account/status counts when only those filter; from the FTS5
 * index alone when only words filter (every FTS5 row is a live job); else over the same conditions.
 */
const countStatement = (query: SearchQuery, text: TextCondition, conditions: Conditions): Statement => {
  const scope = scopeClauses(query, '');
  const undated = query.created === undefined && query.delivered === undefined;
  if (text.kind === 'all' && undated) {
    return { sql: `SELECT coalesce(sum(jobs), 0) AS total FROM counts${where(scope)}`, params: scope.params };
  }
  if (
    text.kind === 'some' &&
    text.words !== undefined &&
    text.exact.length === 0 &&
    undated &&
    scope.clauses.length === 0
  ) {
    return {
      sql: 'SELECT count(*) AS total FROM jobs_text WHERE jobs_text MATCH ?',
      params: [matchExpression(text.words)],
    };
  }
  return { sql: `SELECT count(*) AS total FROM jobs j${where(conditions)}`, params: conditions.params };
};
