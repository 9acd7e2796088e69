/**
 * Stand-ins for the AWS endpoints the CLI's `--stack` mode calls, on one local HTTP port that the AWS SDK
 * reaches through `AWS_ENDPOINT_URL_CLOUDFORMATION`, `AWS_ENDPOINT_URL_OPENSEARCH`, `AWS_ENDPOINT_URL_DYNAMODB`,
 * `AWS_ENDPOINT_URL_STS`, `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`, `AWS_ENDPOINT_URL_EVENTBRIDGE` and
 * `AWS_ENDPOINT_URL_S3`:
 *
 * - CloudFormation `DescribeStacks` (the AWS query protocol: a form-encoded POST, an XML answer);
 * - STS `GetCallerIdentity` (the same protocol), answering with the caller the options name;
 * - CloudWatch Logs `CreateLogStream` and `PutLogEvents` (JSON 1.1 protocol, `X-Amz-Target: Logs_20140328.*`)
 *   into the log groups the options name, keeping every event in {@link AwsStandIns.logEvents};
 * - EventBridge `PutEvents` (JSON 1.1 protocol, `X-Amz-Target: AWSEvents.PutEvents`) onto the buses the options
 *   name, keeping every entry in {@link AwsStandIns.busEntries} and refusing an entry for another bus as
 *   EventBridge does (`ErrorCode` per entry);
 * - the OpenSearch control plane's `DescribeDomain` (REST-JSON, `GET /2021-01-01/opensearch/domain/{name}`);
 * - DynamoDB (JSON protocol, `X-Amz-Target`), forwarded to DynamoDB Local;
 * - S3 `PutObject` (path-style `PUT /<bucket>/<key>`, as the SDK addresses an endpoint given by IP,
 *   `AWS_ENDPOINT_URL_S3`) into the buckets the options name, keeping each object's size, type and first bytes in
 *   {@link AwsStandIns.objects}.
 *
 * Each call is recorded as IAM authorizes it, derived from the request itself: the action from the operation
 * the request names, the resource from the stack, domain or table it names (for DynamoDB, one entry per item
 * of a transaction or batch, as in the cloud rehearsal's recorder).
 */
import {
  Agent,
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthorizedCall, dynamoCalls, s3Call } from '../rehearsal/recorder';

/** A stack as DescribeStacks reports it. */
export interface StandInStack {
  name: string;
  /** Its ARN, `arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>`. */
  id: string;
  status: string;
  outputs: Record<string, string>;
}

/** A domain as DescribeDomain reports it (`DomainStatus`); undefined answers ResourceNotFoundException. */
export type StandInDomainStatus = Record<string, unknown> | undefined;

/** DescribeDomain's `DomainStatus` of an active three-node OpenSearch 3 domain serving at `endpoint` (`host[:port]`). */
export const activeDomainStatus = (
  domain: { name: string; account: string; region: string },
  endpoint: string,
): Record<string, unknown> => ({
  DomainId: `${domain.account}/${domain.name}`,
  DomainName: domain.name,
  ARN: `arn:aws:es:${domain.region}:${domain.account}:domain/${domain.name}`,
  Created: true,
  Deleted: false,
  Processing: false,
  UpgradeProcessing: false,
  Endpoint: endpoint,
  EngineVersion: 'OpenSearch_3.7',
  DomainProcessingStatus: 'Active',
  ClusterConfig: { InstanceType: 'r6g.large.search', InstanceCount: 3, ZoneAwarenessEnabled: true },
});

export interface AwsStandInsOptions {
  account: string;
  region: string;
  stacks: StandInStack[];
  /** DescribeDomain's answer by domain name. */
  domains: Map<string, StandInDomainStatus>;
  /** Where DynamoDB requests go, and the ARN of a table by name (omit when no DynamoDB call is expected). */
  dynamodb?: { endpoint: string; tableArn: (name: string) => string };
  /** The ARN STS GetCallerIdentity answers with (omit when no STS call is expected). */
  callerArn?: string;
  /** The CloudWatch Logs groups that exist (omit when no CloudWatch Logs call is expected). */
  logGroups?: string[];
  /** The EventBridge buses that exist, by name (omit when no EventBridge call is expected). */
  eventBuses?: string[];
  /** The S3 buckets that exist (omit when no S3 call is expected). */
  buckets?: string[];
}

/** One entry a bus took, as `PutEvents` sent it. */
export interface StandInBusEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time?: number;
}

/** What the S3 stand-in keeps of an object put: enough to tell what it is, not its bytes. */
export interface StandInObject {
  size: number;
  contentType: string | undefined;
  /** Its first 16 bytes. */
  head: Buffer;
}

/** One event a log group received. */
export interface StandInLogEvent {
  logGroupName: string;
  logStreamName: string;
  timestamp: number;
  message: string;
}

const CLOUDFORMATION_NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
const DOMAIN_PATH = /^\/2021-01-01\/opensearch\/domain\/([^/]+)$/;
const DYNAMODB_TARGET = /^DynamoDB_20120810\.(\w+)$/;
const LOGS_TARGET = /^Logs_20140328\.(\w+)$/;
const EVENTS_TARGET = 'AWSEvents.PutEvents';
const STS_NS = 'https://sts.amazonaws.com/doc/2011-06-15/';

const xmlEscape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const readBody = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** How many bytes of an object {@link StandInObject.head} keeps. */
const HEAD_BYTES = 16;

/**
 * An object's size and first bytes, read as it streams in: the stand-in keeps no more of it, so the demo's
 * thousands of pictures are counted, not gathered into one buffer each.
 */
const readObject = async (request: IncomingMessage): Promise<{ size: number; head: Buffer }> => {
  const head = Buffer.alloc(HEAD_BYTES);
  let size = 0;
  for await (const chunk of request) {
    const bytes = chunk as Buffer;
    if (size < HEAD_BYTES) bytes.copy(head, size, 0, HEAD_BYTES - size);
    size += bytes.length;
  }
  return { size, head: head.subarray(0, Math.min(size, HEAD_BYTES)) };
};

/** A DynamoDB Local answer, as the stand-in passes it on. */
interface ForwardedAnswer {
  status: number;
  contentType: string | undefined;
  crc32: string | undefined;
  body: Buffer;
}

/** The stand-ins on one port; {@link calls} holds every call as IAM sees it, in order. */
export class AwsStandIns {
  public readonly calls: AuthorizedCall[] = [];
  /** Requests the stand-ins did not recognise (none expected). */
  public readonly unexpected: string[] = [];
  /** Every event the log groups received, in order. */
  public readonly logEvents: StandInLogEvent[] = [];
  /** Every entry the buses took, in order. */
  public readonly busEntries: StandInBusEntry[] = [];
  /** Every object S3 `PutObject` wrote, by `<bucket>/<key>`. */
  public readonly objects = new Map<string, StandInObject>();
  readonly #streams = new Set<string>();
  readonly #options: AwsStandInsOptions;
  readonly #server: Server;
  /** Keeps the connections to DynamoDB Local open between forwarded requests. */
  readonly #dynamodbAgent = new Agent({ keepAlive: true });

  public constructor(options: AwsStandInsOptions) {
    this.#options = options;
    this.#server = createServer((request, response) => {
      const answered =
        request.method === 'PUT' && request.headers['x-amz-target'] === undefined
          ? this.#putObject(request, response)
          : readBody(request).then((body) => this.#handle(request, body, response));
      void answered.catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
  }

  public async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  public async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#dynamodbAgent.destroy();
  }

  async #handle(request: IncomingMessage, bytes: Buffer, response: ServerResponse): Promise<void> {
    const target = request.headers['x-amz-target'];
    const body = bytes.toString('utf8');
    if (request.method === 'POST' && typeof target === 'string' && DYNAMODB_TARGET.test(target)) {
      await this.#dynamodb(request, target, body, response);
      return;
    }
    if (request.method === 'POST' && typeof target === 'string' && LOGS_TARGET.test(target)) {
      this.#logs(LOGS_TARGET.exec(target)![1]!, body, response);
      return;
    }
    if (request.method === 'POST' && target === EVENTS_TARGET) {
      this.#putEvents(body, response);
      return;
    }
    if (request.method === 'POST' && request.url === '/' && target === undefined) {
      const form = new URLSearchParams(body);
      if (form.get('Action') === 'GetCallerIdentity') {
        this.#getCallerIdentity(form, response);
        return;
      }
      const answer = this.#describeStacks(form);
      response.writeHead(answer.status, { 'Content-Type': 'text/xml' }).end(answer.xml);
      return;
    }
    const domain = request.method === 'GET' ? DOMAIN_PATH.exec(request.url ?? '') : null;
    if (domain !== null) {
      this.#describeDomain(decodeURIComponent(domain[1]!), response);
      return;
    }
    this.unexpected.push(`${request.method} ${request.url} ${String(target)}`);
    response.writeHead(400, { 'Content-Type': 'application/json' }).end('{"message":"not a rehearsed call"}');
  }

  #describeStacks(form: URLSearchParams): { status: number; xml: string } {
    const { account, region, stacks } = this.#options;
    if (form.get('Action') !== 'DescribeStacks' || form.get('Version') !== '2010-05-15') {
      this.unexpected.push(`CloudFormation ${form.get('Action')} ${form.get('Version')}`);
      return { status: 400, xml: '' };
    }
    const name = form.get('StackName') ?? '';
    const stack = stacks.find((candidate) => candidate.name === name || candidate.id === name);
    this.calls.push({
      action: 'cloudformation:DescribeStacks',
      // IAM authorizes DescribeStacks on the stack's ARN (its name and unique id).
      resource: stack?.id ?? `arn:aws:cloudformation:${region}:${account}:stack/${name}/*`,
      origin: `CloudFormation DescribeStacks ${name}`,
      request: true,
    });
    if (stack === undefined) {
      return {
        status: 400,
        xml:
          `<ErrorResponse xmlns="${CLOUDFORMATION_NS}"><Error><Type>Sender</Type><Code>ValidationError</Code>` +
          `<Message>Stack with id ${xmlEscape(name)} does not exist</Message></Error>` +
          '<RequestId>stand-in</RequestId></ErrorResponse>',
      };
    }
    const members = Object.entries(stack.outputs)
      .map(
        ([key, value]) =>
          `<member><OutputKey>${xmlEscape(key)}</OutputKey><OutputValue>${xmlEscape(value)}</OutputValue></member>`,
      )
      .join('');
    return {
      status: 200,
      xml:
        `<DescribeStacksResponse xmlns="${CLOUDFORMATION_NS}"><DescribeStacksResult><Stacks><member>` +
        `<StackName>${xmlEscape(stack.name)}</StackName><StackId>${xmlEscape(stack.id)}</StackId>` +
        `<CreationTime>2026-11-01T00:00:00Z</CreationTime><StackStatus>${stack.status}</StackStatus>` +
        `<Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult>` +
        '<ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></DescribeStacksResponse>',
    };
  }

  #getCallerIdentity(form: URLSearchParams, response: ServerResponse): void {
    const { account, callerArn } = this.#options;
    if (form.get('Version') !== '2011-06-15' || callerArn === undefined) {
      this.unexpected.push(`STS ${form.get('Action')} ${form.get('Version')}`);
      response.writeHead(400).end();
      return;
    }
    // IAM authorizes GetCallerIdentity on no resource: "*".
    this.calls.push({ action: 'sts:GetCallerIdentity', resource: '*', origin: 'STS GetCallerIdentity', request: true });
    response
      .writeHead(200, { 'Content-Type': 'text/xml' })
      .end(
        `<GetCallerIdentityResponse xmlns="${STS_NS}"><GetCallerIdentityResult><Arn>${xmlEscape(callerArn)}</Arn>` +
          `<UserId>AROAREHEARSAL:rehearsal</UserId><Account>${account}</Account></GetCallerIdentityResult>` +
          '<ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></GetCallerIdentityResponse>',
      );
  }

  #logs(operation: string, body: string, response: ServerResponse): void {
    const { account, region, logGroups } = this.#options;
    const input = JSON.parse(body) as {
      logGroupName?: string;
      logStreamName?: string;
      logEvents?: { timestamp: number; message: string }[];
    };
    const group = String(input.logGroupName);
    const stream = String(input.logStreamName);
    const reply = (status: number, answer: Record<string, unknown>): void => {
      response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' }).end(JSON.stringify(answer));
    };
    if (logGroups === undefined || (operation !== 'CreateLogStream' && operation !== 'PutLogEvents')) {
      this.unexpected.push(`CloudWatch Logs ${operation}`);
      reply(400, { __type: 'InvalidOperationException', message: 'not a rehearsed call' });
      return;
    }
    this.calls.push({
      action: `logs:${operation}`,
      // IAM authorizes both on the log stream's ARN.
      resource: `arn:aws:logs:${region}:${account}:log-group:${group}:log-stream:${stream}`,
      origin: `CloudWatch Logs ${operation} ${group}`,
      request: true,
    });
    if (!logGroups.includes(group)) {
      reply(400, { __type: 'ResourceNotFoundException', message: 'The specified log group does not exist.' });
      return;
    }
    const key = `${group}\u0000${stream}`;
    if (operation === 'CreateLogStream') {
      if (this.#streams.has(key)) {
        reply(400, { __type: 'ResourceAlreadyExistsException', message: 'The specified log stream already exists' });
        return;
      }
      this.#streams.add(key);
      reply(200, {});
      return;
    }
    if (!this.#streams.has(key)) {
      reply(400, { __type: 'ResourceNotFoundException', message: 'The specified log stream does not exist.' });
      return;
    }
    for (const event of input.logEvents ?? [])
      this.logEvents.push({ logGroupName: group, logStreamName: stream, ...event });
    reply(200, {});
  }

  #putEvents(body: string, response: ServerResponse): void {
    const { account, region, eventBuses } = this.#options;
    const reply = (status: number, answer: Record<string, unknown>): void => {
      response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' }).end(JSON.stringify(answer));
    };
    if (eventBuses === undefined) {
      this.unexpected.push('EventBridge PutEvents');
      reply(400, { __type: 'ValidationException', message: 'not a rehearsed call' });
      return;
    }
    const entries = (JSON.parse(body) as { Entries?: StandInBusEntry[] }).Entries ?? [];
    // IAM authorizes PutEvents once per bus the entries name (one request, so the first is the request).
    const buses = [...new Set(entries.map((entry) => entry.EventBusName ?? 'default'))];
    buses.forEach((bus, index) =>
      this.calls.push({
        action: 'events:PutEvents',
        resource: `arn:aws:events:${region}:${account}:event-bus/${bus}`,
        origin: `EventBridge PutEvents ${bus}`,
        ...(index === 0 ? { request: true as const } : {}),
      }),
    );
    const answers = entries.map((entry) => {
      if (!eventBuses.includes(entry.EventBusName)) {
        return {
          ErrorCode: 'ResourceNotFoundException',
          ErrorMessage: `Event bus ${entry.EventBusName} does not exist.`,
        };
      }
      this.busEntries.push(entry);
      return { EventId: crypto.randomUUID() };
    });
    reply(200, { FailedEntryCount: answers.filter((entry) => 'ErrorCode' in entry).length, Entries: answers });
  }

  async #putObject(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { size, head } = await readObject(request);
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    const [bucket = '', ...rest] = path.slice(1).split('/');
    const key = rest.map((part) => decodeURIComponent(part)).join('/');
    if (this.#options.buckets === undefined || key === '') {
      this.unexpected.push(`S3 PUT ${request.url}`);
      response.writeHead(400).end();
      return;
    }
    this.calls.push(s3Call('PutObjectCommand', { Bucket: bucket, Key: key }));
    if (!this.#options.buckets.includes(bucket)) {
      response
        .writeHead(404, { 'Content-Type': 'application/xml' })
        .end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code></Error>');
      return;
    }
    const contentType = request.headers['content-type'];
    this.objects.set(`${bucket}/${key}`, { size, contentType, head });
    response.writeHead(200, { ETag: '"stand-in"' }).end();
  }

  #describeDomain(name: string, response: ServerResponse): void {
    const { account, region, domains } = this.#options;
    this.calls.push({
      action: 'es:DescribeDomain',
      resource: `arn:aws:es:${region}:${account}:domain/${name}`,
      origin: `OpenSearch DescribeDomain ${name}`,
      request: true,
    });
    const status = domains.get(name);
    if (status === undefined) {
      response
        .writeHead(409, { 'Content-Type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' })
        .end(JSON.stringify({ message: `Domain not found: ${name}` }));
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ DomainStatus: status }));
  }

  async #dynamodb(request: IncomingMessage, target: string, body: string, response: ServerResponse): Promise<void> {
    const dynamodb = this.#options.dynamodb;
    if (dynamodb === undefined) {
      this.unexpected.push(`DynamoDB ${target}`);
      response.writeHead(400).end();
      return;
    }
    const operation = DYNAMODB_TARGET.exec(target)![1]!;
    const [first, ...rest] = dynamoCalls(
      `${operation}Command`,
      JSON.parse(body) as Record<string, unknown>,
      dynamodb.tableArn,
    );
    if (first !== undefined) this.calls.push({ ...first, request: true }, ...rest);
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'x-amz-target', 'x-amz-date', 'authorization']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const forwarded = await this.#forward(dynamodb.endpoint, headers, body);
    const reply: Record<string, string> = { 'Content-Type': forwarded.contentType ?? 'application/x-amz-json-1.0' };
    if (forwarded.crc32 !== undefined) reply['x-amz-crc32'] = forwarded.crc32;
    response.writeHead(forwarded.status, reply).end(forwarded.body);
  }

  /**
   * Sends a DynamoDB request on to DynamoDB Local over a kept-alive connection (Node's HTTP client: the CLI's
   * thousands of seeding writes each pass here, and `fetch` costs several times its CPU per request).
   */
  #forward(endpoint: string, headers: Record<string, string>, body: string): Promise<ForwardedAnswer> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        endpoint,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: this.#dynamodbAgent,
        },
        (incoming) => {
          readBody(incoming).then((answer) => {
            const crc32 = incoming.headers['x-amz-crc32'];
            resolve({
              status: incoming.statusCode ?? 500,
              contentType: incoming.headers['content-type'],
              crc32: typeof crc32 === 'string' ? crc32 : undefined,
              body: answer,
            });
          }, reject);
        },
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });
  }
}
