import { describe, expect, it, vi } from 'vitest';
import { LookupCache } from '../../../functions/auth/cache';

const clock = () => {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

describe('lookup cache', () => {
  it('serves a value until its time is up, then loads again', async () => {
    const time = clock();
    const cache = new LookupCache<string>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: time.now });
    const load = vi.fn(async () => 'v');
    await cache.getOrLoad('k', load);
    time.advance(99);
    await cache.getOrLoad('k', load);
    expect(load).toHaveBeenCalledTimes(1);
    time.advance(1);
    await cache.getOrLoad('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('remembers negative answers', async () => {
    const cache = new LookupCache<string>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: clock().now });
    const load = vi.fn(async () => undefined);
    expect(await cache.getOrLoad('k', load)).toBeUndefined();
    expect(await cache.getOrLoad('k', load)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('caches nothing with a zero TTL', async () => {
    const cache = new LookupCache<string>({ ttlMs: 0, maxEntries: 10, maxNegativeEntries: 10, now: clock().now });
    const load = vi.fn(async () => 'v');
    await cache.getOrLoad('k', load);
    await cache.getOrLoad('k', load);
    expect(load).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it('holds at most maxEntries, forgetting the oldest first', () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 2, maxNegativeEntries: 2, now: clock().now });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual({ value: 2 });
    expect(cache.get('c')).toEqual({ value: 3 });
  });

  it('holds negative answers apart, so that they never evict positive ones', async () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 2, maxNegativeEntries: 3, now: clock().now });
    cache.set('a', 1);
    cache.set('b', 2);
    for (let i = 0; i < 10; i += 1) cache.set(`miss-${i}`, undefined);
    expect(cache.get('a')).toEqual({ value: 1 });
    expect(cache.get('b')).toEqual({ value: 2 });
    expect(cache.get('miss-9')).toEqual({ value: undefined });
    expect(cache.get('miss-6')).toBeUndefined();
    expect(cache.size).toBe(5);
  });

  it('moves a key between the two sides when its answer changes', () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 2, maxNegativeEntries: 2, now: clock().now });
    cache.set('k', undefined);
    cache.set('k', 1);
    expect(cache.get('k')).toEqual({ value: 1 });
    expect(cache.size).toBe(1);
    cache.set('k', undefined);
    expect(cache.get('k')).toEqual({ value: undefined });
    expect(cache.size).toBe(1);
  });

  it('does not cache a failed load', async () => {
    const cache = new LookupCache<string>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: clock().now });
    await expect(cache.getOrLoad('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.getOrLoad('k', async () => 'v')).toBe('v');
  });

  it('forgets everything on clear, negative answers included', () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: clock().now });
    cache.set('a', 1);
    cache.set('gone', undefined);
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('gone')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops an entry found expired, positive or negative, instead of holding it', () => {
    const time = clock();
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: time.now });
    cache.set('a', 1);
    cache.set('gone', undefined);
    time.advance(100);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(1);
    expect(cache.get('gone')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets one key on delete, a cached miss as well as a value', () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 10, maxNegativeEntries: 10, now: clock().now });
    cache.set('a', 1);
    cache.set('gone', undefined);
    cache.delete('gone');
    expect(cache.get('gone')).toBeUndefined();
    expect(cache.get('a')).toEqual({ value: 1 });
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('caches no value with maxEntries 0, and no miss with maxNegativeEntries 0', () => {
    const cache = new LookupCache<number>({ ttlMs: 100, maxEntries: 0, maxNegativeEntries: 0, now: clock().now });
    cache.set('a', 1);
    cache.set('gone', undefined);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('gone')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
