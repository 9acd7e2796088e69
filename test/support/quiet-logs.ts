/**
 * Test setup of every project: a test's log lines belong to the test. The Powertools logger and metrics write
 * through a `Console` of their own on `process.stdout` / `process.stderr` (outside `POWERTOOLS_DEV`, as in
 * Lambda), which passes by vitest's console capture; here, whatever the code under test writes to the worker's
 * standard output or error is handed to the console vitest captures per test instead. With
 * `silent: 'passed-only'` (vitest.config.ts) a passing test prints nothing and a failing test shows every line it
 * produced beside its failure (`npx vitest run --silent=false <file>` prints them all).
 *
 * A test that reads the logs spies on `process.stdout.write` as before: its spy takes the place of this forwarding
 * while it lasts. Processes a test spawns have their own standard streams, read by the test as before.
 */

/** The console vitest installed for this test file, taken before any test spies on its methods. */
const { log, error } = console;

/** Makes `stream.write` hand each chunk to `print` (one trailing newline dropped: `print` adds one). */
const forward = (stream: NodeJS.WriteStream, print: (text: string) => void): void => {
  const write = (
    chunk: string | Uint8Array,
    encodingOrDone?: BufferEncoding | ((error?: Error | null) => void),
    done?: (error?: Error | null) => void,
  ): boolean => {
    const text =
      typeof chunk === 'string'
        ? chunk
        : Buffer.from(chunk).toString(typeof encodingOrDone === 'string' ? encodingOrDone : 'utf8');
    print(text.endsWith('\n') ? text.slice(0, -1) : text);
    const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
    if (callback !== undefined) process.nextTick(callback, null);
    return true;
  };
  stream.write = write as NodeJS.WriteStream['write'];
};

forward(process.stdout, (text) => log('%s', text));
forward(process.stderr, (text) => error('%s', text));
