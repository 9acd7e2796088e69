/**
 * The request and response types of the OpenSearch operations the engine uses, from the types
 * `@opensearch-project/opensearch` generates out of OpenSearch's published API description. Type-only: the
 * engine sends its requests through the library's transport (see ./client.ts), so none of these imports
 * reaches a bundle.
 */
export type { Bulk_ResponseBody as BulkResponse } from '@opensearch-project/opensearch/api/_core/bulk.js';
export type { Get_ResponseBody as GetResponse } from '@opensearch-project/opensearch/api/_core/get.js';
export type { Search_RequestBody as SearchRequestBody } from '@opensearch-project/opensearch/api/_core/search.js';
export type { Indices_Create_RequestBody as CreateIndexBody } from '@opensearch-project/opensearch/api/indices/create.js';
export type { Indices_GetAlias_ResponseBody as AliasesResponse } from '@opensearch-project/opensearch/api/indices/getAlias.js';
export type { Indices_UpdateAliases_RequestBody as UpdateAliasesBody } from '@opensearch-project/opensearch/api/indices/updateAliases.js';
export type {
  Item as BulkResponseItem,
  OperationContainer as BulkAction,
  ResponseItem as BulkItemResult,
} from '@opensearch-project/opensearch/api/_types/_core.bulk.js';
export type { Hit, HitsMetadata, SearchResult } from '@opensearch-project/opensearch/api/_types/_core.search.js';
export type { QueryContainer } from '@opensearch-project/opensearch/api/_types/_common.query_dsl.js';
export type { SortCombinations } from '@opensearch-project/opensearch/api/_types/_common.js';
export type { Action as AliasAction } from '@opensearch-project/opensearch/api/_types/indices.update_aliases.js';
export type { Cluster_PutSettings_RequestBody as ClusterSettingsBody } from '@opensearch-project/opensearch/api/cluster/putSettings.js';
export type { IndicesRecord as CatIndicesRecord } from '@opensearch-project/opensearch/api/_types/cat.indices.js';
