/**
 * The cluster setting that keeps OpenSearch from creating an index under the product's names by itself.
 *
 * OpenSearch creates a missing index on a write unless told otherwise (`action.auto_create_index`, default
 * `true`), with dynamic mappings. The indexer's bulk requests carry `require_alias=true`, but OpenSearch
 * applies that flag to `index`, `create` and `update` items only (a `DeleteRequest` never requires an alias),
 * and a delete with an external version — every delete the indexer sends — asks for its missing target to be
 * created. So with the alias gone (an index deleted by hand), a batch of deletes alone would create a
 * concrete index named like the alias: every later upsert refused (`require_alias`), the first index unable
 * to take the name as its alias, every search failing on its unmapped sort field.
 *
 * The deploy-time setup therefore sets `action.auto_create_index` so that the alias's name and every
 * `{alias}-v*` name are refused and every other name keeps OpenSearch's default (the first pattern that
 * matches decides, as OpenSearch's `AutoCreateIndex` reads it; system indices are always created). A write
 * that finds no alias then fails as `index_not_found_exception`, and the engine creates `{alias}-v0` with its
 * mapping and the alias, and sends the write again (`OpenSearchSearchIndex.apply`). A rebuild's index that
 * another rebuild deleted is not brought back with dynamic mappings either.
 */
import type { ClusterSettingsBody } from './api-types';

/** The setting's name, as `PUT /_cluster/settings` takes it. */
export const AUTO_CREATE_SETTING = 'action.auto_create_index';

/** The setting's value for `alias`: refuse the alias's name and its concrete indices' names, allow the rest. */
export const autoCreateRule = (alias: string): string => `-${alias},-${alias}-v*,+*`;

/**
 * The body of `PUT /_cluster/settings` that sets the rule. Persistent: it outlives a full cluster restart,
 * and a blue/green deployment of the domain carries it over.
 */
export const autoCreateSettingsBody = (alias: string): ClusterSettingsBody => ({
  persistent: { [AUTO_CREATE_SETTING]: autoCreateRule(alias) },
});
