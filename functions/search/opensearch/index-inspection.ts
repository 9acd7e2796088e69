/**
 * The operator's reads of an OpenSearch alias (`status`, `verify-index`, `reindex`): which concrete indices it
 * points at (`GET /_alias/{alias}`), how many documents the live one holds (`GET /{alias}/_count`), the
 * documents of many jobs in one request (`POST /{alias}/_mget`), every concrete index of the alias's names
 * with the aliases it carries (`GET /{alias}-v*\/_alias`) or with its size (`GET /_cat/indices/{alias}-v*`).
 * The functions never send these.
 */
import type { IndexHealth, SearchDocument, UnaliasedIndex } from '../search-index';
import type { AliasesResponse, CatIndicesRecord } from './api-types';
import { type OpenSearchClient, pathSegment } from './client';
import type { IndexedDocument } from './indexed-document';

/** The most ids one `_mget` asks for: a page of documents of a few hundred kilobytes. */
export const MAX_MGET_IDS = 1_000;

/** The part of a `_mget` answer the reads use: per id, whether it was found and its source. */
interface MultiGetAnswer {
  docs: { _id: string; found?: boolean; _source?: IndexedDocument; error?: { type?: string; reason?: string } }[];
}

/** The concrete indices `alias` points at: none when no alias of that name exists. */
export const aliasIndices = async (client: OpenSearchClient, alias: string): Promise<string[]> => {
  const answer = await client.request<AliasesResponse>({
    method: 'GET',
    path: `/_alias/${pathSegment(alias)}`,
    ignore: [404],
  });
  return answer.statusCode === 404 ? [] : Object.keys(answer.body).sort();
};

/** Every concrete index `pattern` names (`jobs-v*`), each with the names of the aliases it carries. */
export const indexAliases = async (client: OpenSearchClient, pattern: string): Promise<Map<string, string[]>> => {
  const answer = await client.request<AliasesResponse>({ method: 'GET', path: `/${pathSegment(pattern)}/_alias` });
  return new Map(Object.entries(answer.body).map(([index, entry]) => [index, Object.keys(entry.aliases ?? {}).sort()]));
};

/** Every concrete index `pattern` names, with its document count and its size on disk in bytes. */
export const listIndices = async (client: OpenSearchClient, pattern: string): Promise<UnaliasedIndex[]> => {
  const answer = await client.request<CatIndicesRecord[]>({
    method: 'GET',
    path: `/_cat/indices/${pathSegment(pattern)}`,
    querystring: { format: 'json', bytes: 'b', h: 'index,docs.count,store.size' },
  });
  return answer.body
    .map((row) => ({
      name: row.index ?? '',
      documents: Number(row['docs.count'] ?? 0),
      bytes: Number(row['store.size'] ?? 0),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
};

/** The alias's indices and, when it points at exactly one, that index's document count. */
export const inspectAlias = async (client: OpenSearchClient, alias: string): Promise<IndexHealth> => {
  const indices = await aliasIndices(client, alias);
  if (indices.length !== 1) return { name: alias, indices, documents: undefined };
  const counted = await client.request<{ count: number }>({ method: 'GET', path: `/${pathSegment(alias)}/_count` });
  return { name: alias, indices, documents: counted.body.count };
};

/** The documents of `jobIds` in one `_mget` on the alias; a per-id error (an alias on several indices) throws. */
export const multiGet = async (
  client: OpenSearchClient,
  alias: string,
  jobIds: readonly number[],
): Promise<Map<number, SearchDocument>> => {
  if (jobIds.length > MAX_MGET_IDS) throw new RangeError(`At most ${MAX_MGET_IDS} ids per _mget`);
  const found = new Map<number, SearchDocument>();
  if (jobIds.length === 0) return found;
  const answer = await client.request<MultiGetAnswer>({
    method: 'POST',
    path: `/${pathSegment(alias)}/_mget`,
    querystring: { _source_includes: 'document' },
    body: { ids: jobIds.map(String) },
  });
  for (const doc of answer.body.docs) {
    if (doc.error !== undefined)
      throw new Error(`_mget of job ${doc._id} failed: ${doc.error.reason ?? doc.error.type}`);
    const document = doc._source?.document;
    if (doc.found === true && document !== undefined) found.set(Number(doc._id), document);
  }
  return found;
};
