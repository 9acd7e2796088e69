/**
 * An HTTP proxy on a free loopback port in front of a dependency (DynamoDB Local, or nothing at all),
 * whose behaviour a test switches at any moment:
 *
 * - `pass`: forwards every request and answers what the dependency answered;
 * - `hang`: accepts the request and never answers (a black hole: the connection stays open);
 * - `throttle`: answers DynamoDB's `ThrottlingException` (HTTP 400) at once;
 * - `tooManyRequests`: answers `429` with an OpenSearch-style error body;
 * - `error500`: answers `500` with an internal error body;
 * - `reset`: destroys the connection without answering.
 *
 * It only ever listens on 127.0.0.1 and only forwards to the upstream it was given.
 */
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultMode = 'pass' | 'hang' | 'throttle' | 'tooManyRequests' | 'error500' | 'reset';

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  mode: FaultMode;
  /** Requests received in each mode so far. */
  readonly received: Record<FaultMode, number>;
  close(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const answer = (response: ServerResponse, status: number, contentType: string, body: object): void => {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
};

/** Starts a proxy to `upstream` (an `http://host:port` URL; without one, `pass` answers 502). */
export const startFaultProxy = async (upstream?: string): Promise<FaultProxy> => {
  const target = upstream === undefined ? undefined : new URL(upstream);
  const received: Record<FaultMode, number> = {
    pass: 0,
    hang: 0,
    throttle: 0,
    tooManyRequests: 0,
    error500: 0,
    reset: 0,
  };
  const state: { mode: FaultMode } = { mode: 'pass' };

  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = await readBody(request);
    if (target === undefined) {
      answer(response, 502, 'application/json', { message: 'no upstream' });
      return;
    }
    const upstreamRequest = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host },
      },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(response);
      },
    );
    upstreamRequest.on('error', () => response.destroy());
    upstreamRequest.end(body);
  };

  const server = createServer((request, response) => {
    const mode = state.mode;
    received[mode] += 1;
    switch (mode) {
      case 'pass':
        void forward(request, response);
        return;
      case 'hang':
        request.resume();
        return;
      case 'throttle':
        void readBody(request).then(() =>
          answer(response, 400, 'application/x-amz-json-1.0', {
            __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
            message: 'Rate of requests exceeds the allowed throughput.',
          }),
        );
        return;
      case 'tooManyRequests':
        void readBody(request).then(() =>
          answer(response, 429, 'application/json', {
            error: { type: 'es_rejected_execution_exception', reason: 'rejected execution' },
            status: 429,
          }),
        );
        return;
      case 'error500':
        void readBody(request).then(() =>
          answer(response, 500, 'application/json', {
            __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
            message: 'Internal server error',
          }),
        );
        return;
      case 'reset':
        request.socket.destroy();
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: FaultMode) {
      state.mode = mode;
    },
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
