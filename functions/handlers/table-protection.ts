/**
 * Lambda entry of the tables' deletion protection, a CloudFormation custom resource the stack creates
 * last, after every other resource (docs/deploy.md, "A first deployment that fails"): the tables are
 * created without protection and this step switches it on (or off, as the stage's `deletionProtection`
 * says) once nothing else of the deployment can fail. A first deployment that fails before it therefore
 * rolls back through unprotected tables, which CloudFormation can delete.
 *
 * - `Create` and `Update`: sets `DeletionProtectionEnabled` of every table named in `TableNames` to
 *   `DeletionProtection`. A create that fails half-way switches the protection it set off again before it
 *   reports the failure, so the rollback that follows finds every table unprotected.
 * - `Delete` changes nothing: a table outlives or goes with the stack by its own deletion policy.
 */
import { ResourceInUseException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { sleep } from '../async';
import { customResource } from '../aws/custom-resource';
import { documentClient } from '../aws/dynamodb';
import { logger } from '../observability';

/** The resource's physical id: one per stack, stable across updates. */
export const PHYSICAL_ID = 'table-deletion-protection';

/** Attempts at one table while DynamoDB answers that it is busy (an update still in progress), and the first wait. */
const ATTEMPTS = 5;
const FIRST_WAIT_MS = 2_000;

/** The tables and the protection a request asks for. */
const requestOf = (event: CloudFormationCustomResourceEvent): { tables: string[]; enabled: boolean } => {
  const properties = event.ResourceProperties as { TableNames?: unknown; DeletionProtection?: unknown };
  const tables = properties.TableNames;
  if (!Array.isArray(tables) || tables.length === 0 || !tables.every((name) => typeof name === 'string')) {
    throw new Error('TableNames must list the tables to protect');
  }
  if (properties.DeletionProtection !== 'true' && properties.DeletionProtection !== 'false') {
    throw new Error(
      `DeletionProtection must be "true" or "false", not ${JSON.stringify(properties.DeletionProtection)}`,
    );
  }
  return { tables, enabled: properties.DeletionProtection === 'true' };
};

/** Sets one table's deletion protection, again after a pause while the table is busy. */
const protect = async (table: string, enabled: boolean): Promise<void> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await documentClient().send(new UpdateTableCommand({ TableName: table, DeletionProtectionEnabled: enabled }));
      logger.info('Table deletion protection set', { table, deletionProtection: enabled });
      return;
    } catch (error) {
      if (!(error instanceof ResourceInUseException) || attempt === ATTEMPTS) throw error;
      logger.warn('Table busy; trying again', { table, attempt });
      await sleep(FIRST_WAIT_MS * 2 ** (attempt - 1));
    }
  }
};

/** Sets the protection of every table; a failed create leaves none of them protected. */
export const protectTables = customResource(
  async (event) => {
    if (event.RequestType === 'Delete') return { physicalResourceId: event.PhysicalResourceId };
    const { tables, enabled } = requestOf(event);
    const done: string[] = [];
    try {
      for (const table of tables) {
        await protect(table, enabled);
        done.push(table);
      }
    } catch (error) {
      // An update that fails is rolled back by CloudFormation with the previous properties; a create has no
      // previous state but "unprotected", which the rollback's table deletions need.
      if (event.RequestType === 'Create' && enabled) {
        for (const table of done) await protect(table, false);
      }
      throw error;
    }
    return { physicalResourceId: PHYSICAL_ID, data: { DeletionProtection: String(enabled) } };
  },
  (error) => logger.error('Table deletion protection failed', { error }),
);

/** The Lambda handler. */
export const handler = middy(protectTables).use(injectLambdaContext(logger));
