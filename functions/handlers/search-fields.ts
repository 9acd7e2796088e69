/**
 * Lambda entry of `GET /search/fields`: the search fields the caller's role may use, ordered by
 * `seqno` (docs/contract.md §3).
 */
import { httpEndpoint } from '../http/endpoint';
import { noInput } from '../http/middlewares/validation';
import { fieldsFor } from '../search/fields';

/** One element of `fields` in the answer. */
export interface SearchFieldView {
  id: string;
  name: string;
  isOperatorOnly: boolean;
  isUserOnly: boolean;
  seqno: number;
}

/** The `200` body of `GET /search/fields`. */
export interface SearchFieldsResponseBody {
  _type: 'SearchFieldsResponseBody';
  fields: SearchFieldView[];
}

export const handler = httpEndpoint(
  { path: '/search/fields', method: 'GET', parse: noInput },
  async ({ principal }): Promise<SearchFieldsResponseBody> => ({
    _type: 'SearchFieldsResponseBody',
    fields: fieldsFor(principal.role).map(({ id, name, isOperatorOnly, isUserOnly, seqno }) => ({
      id,
      name,
      isOperatorOnly,
      isUserOnly,
      seqno,
    })),
  }),
);
