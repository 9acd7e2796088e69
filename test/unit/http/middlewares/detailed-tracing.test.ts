import { describe, expect, it, vi } from 'vitest';
import {
  detailedTracing,
  detailedTracingEnabled,
  loadPowertoolsTracing,
} from '../../../../functions/http/middlewares/detailed-tracing';
import type { HttpMiddleware } from '../../../../functions/http/middlewares/types';
import { logger } from '../../../../functions/observability';
import { requestFor } from './harness';

/** A tracing middleware that records which phase saw which request. */
const recordingTracer = () => {
  const seen: Array<[string, unknown]> = [];
  const middleware: HttpMiddleware = {
    before: (request) => void seen.push(['before', request]),
    after: (request) => void seen.push(['after', request]),
    onError: (request) => void seen.push(['onError', request]),
  };
  return { seen, middleware };
};

describe('detailed tracing middleware', () => {
  it('loads nothing and touches nothing when detailed tracing is off', async () => {
    const load = vi.fn(async () => recordingTracer().middleware);
    const enabled = vi.fn(() => false);
    const middleware = detailedTracing({ enabled, load });
    const request = requestFor();
    await middleware.before?.(request);
    await middleware.after?.(request);
    await middleware.onError?.(request);
    await middleware.before?.(requestFor());
    expect(load).not.toHaveBeenCalled();
    expect(enabled).toHaveBeenCalledTimes(1);
    expect(request.response).toBeUndefined();
  });

  it('hands every phase of every request to the tracer, loaded once by the first request', async () => {
    const tracer = recordingTracer();
    const load = vi.fn(async () => tracer.middleware);
    const middleware = detailedTracing({ enabled: () => true, load });
    const first = requestFor({ requestId: 'first' });
    const second = requestFor({ requestId: 'second' });
    await middleware.before?.(first);
    await middleware.after?.(first);
    await middleware.before?.(second);
    await middleware.onError?.(second);
    expect(load).toHaveBeenCalledTimes(1);
    expect(tracer.seen).toEqual([
      ['before', first],
      ['after', first],
      ['before', second],
      ['onError', second],
    ]);
  });

  it('goes on untraced, warning once, when the tracer cannot be loaded', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    try {
      const load = vi.fn(async (): Promise<HttpMiddleware> => {
        throw new Error('module not found');
      });
      const middleware = detailedTracing({ enabled: () => true, load });
      for (const request of [requestFor(), requestFor()]) {
        await expect(middleware.before?.(request)).resolves.toBeUndefined();
        await expect(middleware.after?.(request)).resolves.toBeUndefined();
      }
      expect(load).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatch(/could not be loaded/);
    } finally {
      warn.mockRestore();
    }
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    [' true ', true],
    ['false', false],
    ['1', false],
    ['', false],
    [undefined, false],
  ])('reads DETAILED_TRACING=%j as %s', (value, expected) => {
    expect(detailedTracingEnabled(value === undefined ? {} : { DETAILED_TRACING: value })).toBe(expected);
  });

  it("loads the Powertools tracer's handler middleware", async () => {
    const middleware = await loadPowertoolsTracing();
    expect(typeof middleware.before).toBe('function');
    expect(typeof middleware.after).toBe('function');
    expect(typeof middleware.onError).toBe('function');
  });
});
