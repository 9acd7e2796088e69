/**
 * `list-clients`: every client with its grants, roles, accounts and the ids and ends of its live secrets,
 * never a token, a secret or a hash.
 */
import { type DynamoDBDocumentClient, type NativeAttributeValue, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthAdministration, FoundClient } from './administration';
import { asClient, isLive } from './records';

type Item = Record<string, NativeAttributeValue>;

/** A client as `list-clients` shows it: never its token, a secret or a hash. */
export interface ClientSummary {
  clientId: string;
  name: string;
  enabled: boolean;
  grants: string[];
  sessionRoles: string[];
  /** Account ids, or `*` (every account; also a client stored before clients had accounts). */
  accounts: number[] | '*';
  maxSessionTtlSeconds?: number;
  createdAt: string;
  /** Its live secrets: id and end (`null` while it has none). */
  secrets: { secretId: string; createdAt: string; expiresAt: string | null }[];
}

/**
 * Every client, oldest first, with the ids and ends of its live secrets. Clients have no index of their own,
 * so this reads the whole table (sessions included, filtered out by DynamoDB): an operator's listing, not a
 * path any request takes.
 */
export const listClients = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  administration: Pick<AuthAdministration, 'secretsOf'>,
): Promise<ClientSummary[]> => {
  const found: FoundClient[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :client',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':client': 'client' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const client = asClient(item);
      if (client !== undefined) found.push({ pk: String(item.pk), client });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey !== undefined);
  const nowMs = Date.now();
  const summaries: ClientSummary[] = [];
  for (const one of found.sort((a, b) => a.client.createdAt.localeCompare(b.client.createdAt))) {
    const { client } = one;
    const secrets = Object.entries(await administration.secretsOf(one))
      .filter(([, entry]) => isLive(entry.expiresAt, nowMs))
      .sort(([, a], [, b]) => a.createdAt.localeCompare(b.createdAt))
      .map(([secretId, entry]) => ({ secretId, createdAt: entry.createdAt, expiresAt: entry.expiresAt ?? null }));
    summaries.push({
      clientId: client.clientId,
      name: client.name,
      enabled: client.enabled,
      grants: [...client.grants],
      sessionRoles: [...client.sessionRoles],
      accounts: client.accounts === '*' ? '*' : [...client.accounts],
      ...(client.maxSessionTtlSeconds === undefined ? {} : { maxSessionTtlSeconds: client.maxSessionTtlSeconds }),
      createdAt: client.createdAt,
      secrets,
    });
  }
  return summaries;
};
