/**
 * Records the AWS calls a function makes, as the IAM requests AWS authorizes them: DynamoDB calls at the
 * SDK's middleware (one action per item of a transaction or a batch, index ARNs for queries of an index),
 * S3 calls at the SDK's middleware too (`s3:GetObject` on the object for a `GetObject` or `HeadObject`), and
 * OpenSearch calls at the HTTP level (`es:ESHttp<Method>` on the domain path). A presigned URL in an answer is
 * a call as well: S3 authorizes whoever uses it as the role that signed it, so the object it names must be one
 * that role may read (a download) or write (an upload target).
 */
import type { S3Client } from '@aws-sdk/client-s3';
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

/** The IAM action of each S3 operation the functions use (IAM has no `s3:HeadObject`: it is `s3:GetObject`). */
const S3_ACTIONS: Record<string, string> = {
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  PutObject: 's3:PutObject',
};

/** The ARN of one object. */
const objectArn = (bucket: string, key: string): string => `arn:aws:s3:::${bucket}/${key}`;

/** The IAM request of one S3 command on an object. */
export const s3Call = (command: string, input: Json): AuthorizedCall => {
  const operation = command.replace(/Command$/, '');
  return {
    action: S3_ACTIONS[operation] ?? `s3:${operation}`,
    resource: objectArn(String(input.Bucket), String(input.Key)),
    origin: `S3 ${operation}`,
    request: true,
  };
};

/**
 * The bucket and key a presigned URL names: virtual-hosted (`https://<bucket>.s3.<region>.amazonaws.com/<key>`, as
 * in AWS) or path-style (`http://127.0.0.1:<port>/<bucket>/<key>`, the local stand-in); the key of a `POST` form
 * travels in its fields instead.
 */
const addressOf = (url: URL, formKey?: string): { bucket: string; key: string } => {
  const path = decodeURIComponent(url.pathname.slice(1));
  const hosted = /^(.+)\.s3[.-]/.exec(url.hostname)?.[1];
  if (hosted !== undefined) return { bucket: hosted, key: formKey ?? path };
  const [bucket = '', ...key] = path.split('/');
  return { bucket, key: formKey ?? key.join('/') };
};

const presignedUrl = (value: string): URL | undefined => {
  if (!/^https?:\/\//.test(value)) return undefined;
  const url = new URL(value);
  return url.searchParams.has('X-Amz-Signature') ? url : undefined;
};

/**
 * The IAM requests of the presigned URLs in an answer's body: each upload target (`{url, method, fields}` of a
 * `POST` form, `{url, method: 'PUT'}`) puts its object, each other presigned URL gets its object.
 */
export const presignedCalls = (body: unknown): AuthorizedCall[] => {
  const calls: AuthorizedCall[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const url = presignedUrl(value);
      if (url === undefined) return;
      const { bucket, key } = addressOf(url);
      calls.push({
        action: 's3:GetObject',
        resource: objectArn(bucket, key),
        origin: 'presigned GET URL',
        request: true,
      });
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    const node = value as Json;
    if (typeof node.url === 'string' && (node.method === 'PUT' || node.method === 'POST')) {
      const fields = (node.fields ?? {}) as Json;
      const formKey = node.method === 'POST' ? String(fields.key ?? fields.Key) : undefined;
      const { bucket, key } = addressOf(new URL(node.url), formKey);
      calls.push({
        action: 's3:PutObject',
        resource: objectArn(bucket, key),
        origin: `presigned ${String(node.method)} upload target`,
        request: true,
      });
      return;
    }
    Object.values(node).forEach(visit);
  };
  visit(body);
  return calls;
};

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

  /** Watches every command an S3 client sends. */
  public watchS3(client: S3Client): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (this.recording) this.calls.push(s3Call(String(context.commandName), args.input as Json));
        return next(args);
      },
      { step: 'initialize', name: 'rehearsalRecorder', override: true },
    );
  }

  /** Records the presigned URLs of an answer's body (JSON text), as the calls of whoever signed them. */
  public presigned(body: string | undefined): void {
    if (!this.recording || body === undefined || body === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return;
    }
    this.calls.push(...presignedCalls(parsed));
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
