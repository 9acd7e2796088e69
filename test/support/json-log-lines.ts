/**
 * The JSON lines the code under test logs during one test: from the call on, the process's standard output and
 * error are captured instead of printed (until the test's `vi.restoreAllMocks()`), and each line that is a JSON
 * object is parsed into the list returned.
 */
import { vi } from 'vitest';

export const captureJsonLogLines = (): Record<string, unknown>[] => {
  const logged: Record<string, unknown>[] = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    for (const line of String(chunk).split('\n')) {
      if (line.startsWith('{')) logged.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return logged;
};
