/**
 * The local stand-in for Lambda's asynchronous invocation (local/lambda/async-invocation.ts): a failed or timed-out
 * invocation is retried twice after growing pauses, an event that failed every attempt is dead-lettered with the
 * last reason, and the caller's promise settles only then.
 */
import { describe, expect, it } from 'vitest';
import { type AsyncDeadLetter, asyncInvoker } from '../../../local/lambda/async-invocation';

const setUp = (handler: (event: string) => Promise<unknown>, timeoutMs = 1_000) => {
  const pauses: number[] = [];
  const letters: AsyncDeadLetter<string>[] = [];
  const retries: string[] = [];
  const invoke = asyncInvoker<string>({
    handler: (event) => handler(event),
    functionName: 'images-test',
    region: 'us-east-1',
    timeoutMs,
    onDeadLetter: (letter) => void letters.push(letter),
    onRetry: (reason) => void retries.push(reason),
    sleep: async (ms) => void pauses.push(ms),
  });
  return { invoke, pauses, letters, retries };
};

describe('asynchronous invocation of a local function', () => {
  it('runs the function once when it succeeds', async () => {
    const calls: string[] = [];
    const { invoke, pauses, letters } = setUp(async (event) => calls.push(event));

    await invoke('upload-1');

    expect(calls).toEqual(['upload-1']);
    expect(pauses).toEqual([]);
    expect(letters).toEqual([]);
  });

  it('retries a failed invocation after a pause, and is done once an attempt succeeds', async () => {
    let attempts = 0;
    const { invoke, pauses, letters, retries } = setUp(async () => {
      attempts += 1;
      if (attempts === 1) throw Object.assign(new Error('S3 is down'), { name: 'ServiceUnavailable' });
    });

    await invoke('upload-1');

    expect(attempts).toBe(2);
    expect(pauses).toEqual([1_000]);
    expect(retries).toEqual(['ServiceUnavailable: S3 is down']);
    expect(letters).toEqual([]);
  });

  it('dead-letters an event that failed three attempts, with the last reason', async () => {
    let attempts = 0;
    const { invoke, pauses, letters } = setUp(async () => {
      attempts += 1;
      throw new Error(`failure ${attempts}`);
    });

    await invoke('upload-1');

    expect(attempts).toBe(3);
    expect(pauses).toEqual([1_000, 2_000]);
    expect(letters).toEqual([
      expect.objectContaining({
        functionName: 'images-test',
        attempts: 3,
        reason: 'Error: failure 3',
        event: 'upload-1',
      }),
    ]);
  });

  it('counts an invocation that overruns the function’s timeout as failed', async () => {
    const { invoke, letters } = setUp(() => new Promise(() => undefined), 20);

    await invoke('upload-1');

    expect(letters[0]?.reason).toMatch(/did not answer within 20 ms/);
  });
});
