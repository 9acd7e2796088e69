/**
 * The query classes every search measurement runs: what a user of the large account and an operator
 * really send to POST /search, with targets (a job number, a GUID, a file name) picked from the
 * generated population so each class finds what it looks for.
 */
import type { Role } from '../../functions/auth/principal';
import type { SearchQuery } from '../../functions/search/search-index';
import { toSearchQuery, parseSearchCriteria } from '../../functions/http/search-criteria';
import { generateJob, idsOfAccount, LARGE_ACCOUNT_ID, type Population, totalJobs } from './generator';

/** One query class: who asks, and the JSON body of the request. */
export interface QueryClass {
  /** Stable key: `one-word`. */
  id: string;
  label: string;
  role: Role;
  accountId: number;
  body: Record<string, unknown>;
}

/** A job of the large account at about `fraction` of the id range. */
const largeAccountJobAt = (population: Population, fraction: number): number => {
  const [id] = idsOfAccount(population, LARGE_ACCOUNT_ID, Math.max(1, Math.floor(totalJobs(population) * fraction)), 1);
  if (id === undefined) throw new Error('The large account has no job in the upper id range');
  return id;
};

/** The query classes of a population. */
export const queryClasses = (population: Population): QueryClass[] => {
  const numbered = generateJob(population, largeAccountJobAt(population, 0.5));
  const withGuid = generateJob(population, largeAccountJobAt(population, 0.4));
  const withFile = generateJob(population, largeAccountJobAt(population, 0.3));
  const fileName = withFile.files[0]?.fileName ?? '';
  const user = { role: 'user' as const, accountId: LARGE_ACCOUNT_ID };
  return [
    { id: 'empty', label: 'empty query', ...user, body: {} },
    {
      id: 'empty-statuses',
      label: 'empty query + 2 statuses',
      ...user,
      body: { statuses: ['CJ_REVIEWING', 'CJ_REJECT_READY'] },
    },
    {
      id: 'empty-dates',
      label: 'empty query + created range (one quarter)',
      ...user,
      body: { dateFrom: '2020-01-01', dateTo: '2020-04-01' },
    },
    { id: 'one-word', label: 'one word (Global)', ...user, body: { query: 'catalogue' } },
    { id: 'three-prefixes', label: 'three prefix words (Global)', ...user, body: { query: 'spr sho cat' } },
    {
      id: 'file-name',
      label: 'file name (FileName)',
      ...user,
      body: { field: 'FileName', query: fileName.replace(/\.[^.]+$/, '') },
    },
    {
      id: 'job-number',
      label: 'job number (JobNumber)',
      ...user,
      body: { field: 'JobNumber', query: String(numbered.id) },
    },
    { id: 'guid', label: 'GUID (Guid)', ...user, body: { field: 'Guid', query: withGuid.guid.toUpperCase() } },
    { id: 'deep-page', label: 'deep page (page 499 × 20)', ...user, body: { page: 499 } },
    {
      id: 'operator-global',
      label: 'operator Global query, all accounts',
      role: 'operator',
      accountId: 1,
      body: { query: 'sneakers lookbook' },
    },
  ];
};

/** The engine query of a class, built by the handler's own parser and scoping. */
export const engineQuery = (queryClass: QueryClass): SearchQuery => {
  const principal = { role: queryClass.role, accountId: queryClass.accountId };
  return toSearchQuery(parseSearchCriteria({ encoding: 'json', fields: queryClass.body }, principal), principal);
};
