/**
 * The OpenSearch data-plane client: SigV4-signed (the client's `aws-v3` signer, credentials from the
 * default AWS provider chain) for an AWS domain, plain HTTP for a local node.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client, errors } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';

/** How to reach an OpenSearch node. */
export interface ClientSettings {
  url: string;
  region: string;
  /** Time budget of one request, in milliseconds; requests are not retried by the client. */
  timeoutMs: number;
}

/** The SigV4 service of an AWS endpoint: `es` for a managed domain, `aoss` for serverless; none otherwise. */
export const awsService = (url: string): 'es' | 'aoss' | undefined => {
  const host = new URL(url).hostname.toLowerCase();
  if (host.endsWith('.aoss.amazonaws.com')) return 'aoss';
  if (host.endsWith('.es.amazonaws.com') || host.endsWith('.amazonaws.com')) return 'es';
  return undefined;
};

/** Creates the client for a node. */
export const createClient = (settings: ClientSettings): Client => {
  const service = awsService(settings.url);
  const signing =
    service === undefined
      ? {}
      : AwsSigv4Signer({ region: settings.region, service, getCredentials: defaultProvider() });
  return new Client({
    ...signing,
    node: settings.url,
    requestTimeout: settings.timeoutMs,
    // One attempt per call: callers own retries (the stream retries bulk writes; search answers 503).
    maxRetries: 0,
  });
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
