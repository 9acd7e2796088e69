/**
 * A webhook receiver for end-to-end tests: a local HTTP server on 127.0.0.1 that records every request and answers
 * as each path is told to — `200`, a series of statuses, or never (it holds the request open until stopped).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One request the receiver took. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How a path answers: each request the next status of the list (the last one repeats), or never. */
export type Answers = number[] | 'never';

export interface WebhookReceiver {
  /** The receiver's base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** Sets how a path answers (default 200). */
  answer(path: string, answers: Answers): void;
  /** The requests a path received so far, oldest first. */
  received(path: string): Received[];
  stop(): Promise<void>;
}

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const answers = new Map<string, Answers>();
  const seen: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const count = seen.filter((entry) => entry.path === path).length;
      seen.push({ path, headers, body: Buffer.concat(chunks).toString('utf8') });
      const plan = answers.get(path) ?? [200];
      if (plan === 'never') return;
      response.statusCode = plan[Math.min(count, plan.length - 1)] ?? 200;
      response.end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    answer: (path, plan) => answers.set(path, plan),
    received: (path) => seen.filter((entry) => entry.path === path),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
