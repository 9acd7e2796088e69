/**
 * Turns a table description of `functions/tables.ts` into `TableV2` properties, so the deployed
 * tables and the local ones are built from the same data and never restate a key name.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  Billing,
  type GlobalSecondaryIndexPropsV2,
  ProjectionType,
  StreamViewType,
  type TablePropsV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IndexDefinition, KeyDefinition, TableDefinition } from '../functions/tables';

/** How a deployed table is protected. */
export interface TableProtection {
  /**
   * The table retained when the stack is deleted or the table replaced, but not when the deployment that
   * created it rolls back: a failed first deployment leaves no empty table behind. Deletion protection
   * itself is switched on by the deployment's last step (lib/table-deletion-protection.ts), never by the
   * template: a table created protected could not be deleted by that rollback.
   */
  deletionProtection: boolean;
}

const ATTRIBUTE_TYPES = { S: AttributeType.STRING, N: AttributeType.NUMBER } as const;

const PROJECTIONS = { KEYS_ONLY: ProjectionType.KEYS_ONLY, ALL: ProjectionType.ALL } as const;

const STREAM_VIEWS = { NEW_AND_OLD_IMAGES: StreamViewType.NEW_AND_OLD_IMAGES } as const;

/** A key of a definition as a CDK attribute. */
export const attributeOf = (key: KeyDefinition): Attribute => ({ name: key.name, type: ATTRIBUTE_TYPES[key.type] });

/** A global secondary index of a definition as CDK index properties. */
export const indexPropsOf = (index: IndexDefinition): GlobalSecondaryIndexPropsV2 => ({
  indexName: index.indexName,
  partitionKey: attributeOf(index.partitionKey),
  ...(index.sortKey === undefined ? {} : { sortKey: attributeOf(index.sortKey) }),
  projectionType: PROJECTIONS[index.projection],
});

/**
 * The `TableV2` properties of a definition: on-demand billing, point-in-time recovery, the
 * definition's keys, indexes, stream and TTL attribute, and the deletion policy of the requested protection.
 */
export const tablePropsOf = (definition: TableDefinition, protection: TableProtection): TablePropsV2 => ({
  partitionKey: attributeOf(definition.partitionKey),
  ...(definition.sortKey === undefined ? {} : { sortKey: attributeOf(definition.sortKey) }),
  globalSecondaryIndexes: definition.globalSecondaryIndexes.map(indexPropsOf),
  ...(definition.stream === undefined ? {} : { dynamoStream: STREAM_VIEWS[definition.stream] }),
  ...(definition.timeToLiveAttribute === undefined ? {} : { timeToLiveAttribute: definition.timeToLiveAttribute }),
  billing: Billing.onDemand(),
  pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
  // Switched on by the deployment's last step once nothing else can fail (lib/table-deletion-protection.ts).
  deletionProtection: false,
  removalPolicy: protection.deletionProtection ? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE : RemovalPolicy.DESTROY,
});
