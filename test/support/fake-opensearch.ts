/**
 * A fake OpenSearch node for unit tests of the OpenSearch client and engine: a local `node:http`
 * server that records every request and answers with whatever `reply` returns.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake node received it. */
export interface RecordedRequest {
  method: string;
  /** The request target as sent: path and query string. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  contentType: string | undefined;
  body: string;
}

/** The fake node's answer: a status and an optional JSON body (never sent for HEAD). */
export interface FakeReply {
  status: number;
  body?: unknown;
  /** Reset the connection instead of answering (what a client sees on a socket the server had closed). */
  reset?: boolean;
}

/** Decides the answer to one request. */
export type ReplyTo = (request: RecordedRequest) => FakeReply;

/** A fake OpenSearch node: records every request and answers with `reply`. */
export class FakeOpenSearchNode {
  public readonly requests: RecordedRequest[] = [];
  public reply: ReplyTo;
  readonly #server: Server;

  /** @param reply the answer until a test sets another. */
  public constructor(reply: ReplyTo) {
    this.reply = reply;
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  /** Listens on a free loopback port; resolves to the node's URL. */
  public async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  public async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The requests other than HEAD (the engine's index-exists probe). */
  public calls(): RecordedRequest[] {
    return this.requests.filter((request) => request.method !== 'HEAD');
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = new URL(request.url ?? '/', 'http://fake');
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        path: target.pathname,
        query: target.searchParams,
        headers: request.headers,
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      this.requests.push(recorded);
      const reply = this.reply(recorded);
      if (reply.reset === true) {
        request.socket.resetAndDestroy();
        return;
      }
      const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
      response.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      });
      response.end(request.method === 'HEAD' ? undefined : payload);
    });
  }
}
