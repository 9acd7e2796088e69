/** The ports the local stack listens on, checked free before anything starts. */
import { createServer } from 'node:net';

/** A port the stack needs is taken by another process. */
export class PortInUseError extends Error {
  public readonly port: number;

  public constructor(port: number, what: string) {
    super(`Port ${port} (${what}) is already in use; stop what uses it or choose another port`);
    this.name = 'PortInUseError';
    this.port = port;
  }
}

/** Checks that nothing listens on a port (DynamoDB Local would otherwise seem to start on a stranger's port). */
export const assertPortFree = (port: number, what: string): Promise<void> =>
  new Promise((resolve, reject) => {
    if (port === 0) {
      resolve();
      return;
    }
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, what) : error),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });
