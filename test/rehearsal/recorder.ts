/**
 * Records the AWS calls a function makes, as the IAM requests AWS authorizes them: DynamoDB calls at the
 * SDK's middleware (one action per item of a transaction or a batch, index ARNs for queries of an index)
 * and OpenSearch calls at the HTTP level (`es:ESHttp<Method>` on the domain path).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One request as IAM sees it. */
export interface AuthorizedCall {
  action: string;
  resource: string;
  /** What the function sent, for messages. */
  origin: string;
  /** For the first call of a DynamoDB request: the capacity units the whole request consumed. */
  capacityUnits?: number;
  /** Marks the first call of each request (a transaction of several items is one request). */
  request?: true;
  /**
   * The partition key values the call touches, as IAM's `dynamodb:LeadingKeys` sees them (calls naming
   * items by key: GetItem, PutItem, UpdateItem, DeleteItem and the items of a transaction or batch).
   */
  leadingKeys?: string[];
}

type Json = Record<string, unknown>;

const TRANSACT_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** The partition key value (`pk`, the first key attribute of both tables) of an item or a key. */
const leadingKeysOf = (...keys: unknown[]): string[] | undefined => {
  const values = keys
    .map((key) => (key as Json | undefined)?.pk)
    .filter((value): value is string => typeof value === 'string');
  return values.length === 0 ? undefined : values;
};

const withLeadingKeys = (call: AuthorizedCall, keys: string[] | undefined): AuthorizedCall =>
  keys === undefined ? call : { ...call, leadingKeys: keys };

/** The IAM requests of one DynamoDB command. */
export const dynamoCalls = (command: string, input: Json, tableArn: (name: string) => string): AuthorizedCall[] => {
  const operation = command.replace(/Command$/, '');
  const origin = `DynamoDB ${operation}`;
  const onTable = (name: unknown, index?: unknown): string =>
    index === undefined ? tableArn(String(name)) : `${tableArn(String(name))}/index/${String(index)}`;
  switch (operation) {
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (input.TransactItems as Json[]).map((item) => {
        const [kind, body] = Object.entries(item)[0] as [string, Json];
        const call = {
          action: TRANSACT_ACTIONS[kind] ?? `dynamodb:${kind}`,
          resource: onTable(body.TableName),
          origin,
        };
        return withLeadingKeys(call, leadingKeysOf(body.Key, body.Item));
      });
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Json).map(([table, request]) => {
        const items = [request].flat() as Json[];
        const keys = items.flatMap((entry) => [
          ...((entry.Keys as Json[] | undefined) ?? []),
          (entry.PutRequest as Json | undefined)?.Item,
          (entry.DeleteRequest as Json | undefined)?.Key,
        ]);
        return withLeadingKeys(
          { action: `dynamodb:${operation}`, resource: onTable(table), origin },
          leadingKeysOf(...keys),
        );
      });
    default:
      return [
        withLeadingKeys(
          { action: `dynamodb:${operation}`, resource: onTable(input.TableName, input.IndexName), origin },
          input.IndexName === undefined ? leadingKeysOf(input.Key, input.Item) : undefined,
        ),
      ];
  }
};

/** The IAM request of one HTTP request to a search domain: `es:ESHttp<Method>` on the domain path. */
export const openSearchCall = (method: string, path: string, domainArn: string): AuthorizedCall => ({
  action: `es:ESHttp${method.charAt(0)}${method.slice(1).toLowerCase()}`,
  resource: `${domainArn}${path}`,
  origin: `OpenSearch ${method} ${path}`,
  request: true,
});

/** Collects the calls made while recording is on. */
export class CallRecorder {
  public readonly calls: AuthorizedCall[] = [];
  public recording = false;

  /** Watches every command the document client sends. */
  public watchDynamo(client: DynamoDBDocumentClient, tableArn: (name: string) => string): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!this.recording) return next(args);
        const input = args.input as Json;
        const calls = dynamoCalls(String(context.commandName), input, tableArn);
        // Ask what the request costs (the answer does not change otherwise).
        input.ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        const units = [consumed]
          .flat()
          .reduce(
            (sum: number, entry) => sum + Number((entry as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0),
            0,
          );
        const [first, ...rest] = calls;
        if (first !== undefined) this.calls.push({ ...first, request: true, capacityUnits: units }, ...rest);
        return result;
      },
      { step: 'initialize', name: 'rehearsalRecorder', override: true },
    );
  }

  /** Records one HTTP request to the search domain. */
  public openSearch(method: string, path: string, domainArn: string): void {
    if (!this.recording) return;
    this.calls.push(openSearchCall(method, path, domainArn));
  }

  /** Runs `work` with recording on; returns the calls it made. */
  public async during(work: () => Promise<unknown>): Promise<AuthorizedCall[]> {
    const from = this.calls.length;
    this.recording = true;
    try {
      await work();
    } finally {
      this.recording = false;
    }
    return this.calls.slice(from);
  }
}
