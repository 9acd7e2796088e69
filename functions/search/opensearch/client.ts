/**
 * The OpenSearch data-plane client: SigV4-signed (the library's `aws-v3` signer, credentials from the
 * default AWS provider chain) for an AWS domain, plain HTTP for a local node.
 *
 * It is assembled from the transport layer of `@opensearch-project/opensearch` — its `Transport`,
 * `Connection`, connection pool, serializer and error classes, wired the way the library's `Client`
 * wires them — without the library's `Client` class, whose generated API surface (hundreds of endpoint
 * modules) would be most of the Lambda bundle. The engine names each HTTP request itself.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { AwsSigv4Signer, type AwsSigv4SignerOptions } from '@opensearch-project/opensearch/aws-v3';
import Connection from '@opensearch-project/opensearch/lib/Connection.js';
import * as errors from '@opensearch-project/opensearch/lib/errors.js';
import { ConnectionPool } from '@opensearch-project/opensearch/lib/pool/index.js';
import Serializer from '@opensearch-project/opensearch/lib/Serializer.js';
import Transport from '@opensearch-project/opensearch/lib/Transport.js';

/** How to reach an OpenSearch node. */
export interface ClientSettings {
  url: string;
  region: string;
  /** Time budget of one request, in milliseconds; requests are not retried by the client. */
  timeoutMs: number;
}

/** A SigV4 service: `es` for a managed domain, `aoss` for OpenSearch Serverless. */
export type AwsService = 'es' | 'aoss';

/** Where the signer's credentials come from (the signer's own option type). */
export type CredentialsProvider = NonNullable<AwsSigv4SignerOptions['getCredentials']>;

/** How requests are signed; by default as the URL implies, with the default AWS credential chain. */
export interface SigningOptions {
  /** Signs for this service whatever the URL is (by default: {@link awsService} of the URL, if any). */
  service?: AwsService;
  /** The credentials to sign with (by default: the default AWS provider chain). */
  getCredentials?: CredentialsProvider;
}

/** One HTTP request to OpenSearch. */
export interface OpenSearchRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** The path, its variable segments already URL-encoded (see {@link pathSegment}). */
  path: string;
  querystring?: Record<string, string | number | boolean>;
  /** A JSON body (sent as `application/json`). */
  body?: object;
  /** The lines of an NDJSON body (sent as `application/x-ndjson`, each line ending in a newline). */
  bulkBody?: object[];
  /** Error statuses answered as responses instead of thrown as `ResponseError`. */
  ignore?: number[];
  /** This request's time budget, in milliseconds (default: the client's). */
  timeoutMs?: number;
}

/** The answer to an {@link OpenSearchRequest}: for `HEAD`, the body is whether the status is below 400. */
export interface OpenSearchResponse<T> {
  statusCode: number;
  body: T;
}

/** The library's default name of a client, used by its transport in request metadata. */
const CLIENT_NAME = 'opensearch-js';
/** The library's default sniff endpoint (sniffing stays off: one endpoint, no node discovery). */
const SNIFF_ENDPOINT = '_nodes/_all/http';
/** The library's default budget of the ping that tries a dead connection again. */
const PING_TIMEOUT_MS = 3_000;

/** Nobody listens to the transport's diagnostic events (`request`, `response`, …). */
const ignoreEvent = (): boolean => false;

/** URL-encodes one variable path segment (an index name, a document id), as the library's API does. */
export const pathSegment = (value: string): string => encodeURIComponent(value);

/**
 * A client of one OpenSearch endpoint: requests go through the library's transport (timeouts, error
 * classes, response decoding, signing when the connection signs) and are never retried by it.
 */
export class OpenSearchClient {
  readonly #pool: ConnectionPool;
  readonly #transport: Transport;

  public constructor(
    url: string,
    timeoutMs: number,
    classes: { Connection: typeof Connection; Transport: typeof Transport } = { Connection, Transport },
  ) {
    this.#pool = new ConnectionPool({
      Connection: classes.Connection,
      emit: ignoreEvent,
      pingTimeout: PING_TIMEOUT_MS,
      resurrectStrategy: 'ping',
      sniffEnabled: false,
    });
    this.#pool.addConnection(url);
    this.#transport = new classes.Transport({
      emit: ignoreEvent,
      connectionPool: this.#pool,
      serializer: new Serializer(),
      // One attempt per call: callers own retries (the stream retries bulk writes; search answers 503).
      maxRetries: 0,
      requestTimeout: timeoutMs,
      sniffEndpoint: SNIFF_ENDPOINT,
      nodeSelector: 'round-robin',
      name: CLIENT_NAME,
      headers: {},
    });
  }

  /** Sends a request; an error status not in `ignore` rejects with the library's `ResponseError`. */
  public async request<T>(request: OpenSearchRequest): Promise<OpenSearchResponse<T>> {
    const { method, path, querystring = {}, body, bulkBody, ignore, timeoutMs } = request;
    // As the library's API functions: a request without a JSON body carries an empty one.
    const params =
      bulkBody === undefined
        ? { method, path, querystring, body: body ?? '' }
        : { method, path, querystring, bulkBody };
    const response = await this.#transport.request(params, {
      ...(ignore === undefined ? {} : { ignore }),
      ...(timeoutMs === undefined ? {} : { requestTimeout: timeoutMs }),
    });
    return { statusCode: response.statusCode ?? 0, body: response.body as T };
  }

  /** Closes the connections (after their open requests end). */
  public close(): Promise<void> {
    return new Promise((resolve) => this.#pool.empty(resolve));
  }
}

/** The SigV4 service of an AWS endpoint: `es` for a managed domain, `aoss` for serverless; none otherwise. */
export const awsService = (url: string): AwsService | undefined => {
  const host = new URL(url).hostname.toLowerCase();
  if (host.endsWith('.aoss.amazonaws.com')) return 'aoss';
  if (host.endsWith('.es.amazonaws.com') || host.endsWith('.amazonaws.com')) return 'es';
  return undefined;
};

/** Creates the client for a node: signing with the `aws-v3` signer's connection and transport when it is AWS. */
export const createClient = (settings: ClientSettings, signing: SigningOptions = {}): OpenSearchClient => {
  const service = signing.service ?? awsService(settings.url);
  if (service === undefined) return new OpenSearchClient(settings.url, settings.timeoutMs);
  const signer = AwsSigv4Signer({
    region: settings.region,
    service,
    getCredentials: signing.getCredentials ?? defaultProvider(),
  });
  return new OpenSearchClient(settings.url, settings.timeoutMs, signer);
};

/** Whether an error means OpenSearch could not be reached or could not serve the request right now. */
export const isTransientClientError = (error: unknown): boolean => {
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.RequestAbortedError
  ) {
    return true;
  }
  return error instanceof errors.ResponseError && (error.statusCode === 429 || error.statusCode >= 500);
};

/** The HTTP status of an OpenSearch error response, if the error is one. */
export const responseStatus = (error: unknown): number | undefined =>
  error instanceof errors.ResponseError ? error.statusCode : undefined;

/** The OpenSearch error type of an error response (`resource_already_exists_exception`, …), if any. */
export const responseErrorType = (error: unknown): string | undefined => {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.body as { error?: { type?: string } } | undefined;
  return body?.error?.type;
};

const STALE_SOCKET = /ECONNRESET|EPIPE|socket hang up/i;

/**
 * Whether a request died on a connection the engine had already closed: a keep-alive socket that
 * outlived a Lambda freeze answers a reset (or a broken pipe) to the first request after the thaw. Such a
 * request never reached OpenSearch, so an idempotent one may be sent again at once.
 */
export const isStaleSocketError = (error: unknown): boolean =>
  error instanceof errors.ConnectionError && STALE_SOCKET.test(error.message);

/**
 * Sends an idempotent request once more when the first attempt died on a socket the engine had already
 * closed (a keep-alive connection that outlived a Lambda freeze); such a request never reached OpenSearch.
 * Bulk writes qualify: every item carries its external version, so a repeat changes nothing.
 */
export const retryStaleSocket = async <T>(request: () => Promise<T>): Promise<T> => {
  try {
    return await request();
  } catch (error) {
    if (!isStaleSocketError(error)) throw error;
    return request();
  }
};
