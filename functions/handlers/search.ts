/**
 * Lambda entry of `POST /search` (docs/contract.md §4): the shared HTTP chain checks the request and turns
 * the body into validated {@link SearchCriteria}; this handler scopes them to the caller (a user sees
 * only its own account), asks the search index for one page and answers the seed's search response.
 */
import { httpEndpoint } from '../http/endpoint';
import { parseSearchCriteria, type SearchCriteria, toSearchQuery } from '../http/search-criteria';
import { searchIndex } from '../search/engine';
import { type SearchResponseBody, toSearchResponseBody } from '../search/response';

export const handler = httpEndpoint<SearchCriteria, SearchResponseBody>(
  { path: '/search', method: 'POST', parse: parseSearchCriteria },
  async ({ input, principal }) => {
    const index = await searchIndex();
    const result = await index.search(toSearchQuery(input, principal));
    return toSearchResponseBody(result);
  },
);
