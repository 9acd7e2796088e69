/**
 * A small time-bounded cache for authentication lookups, per Lambda container. It remembers negative
 * answers too (an unknown token is not looked up again within the TTL), and holds at most a fixed
 * number of entries, forgetting the oldest first.
 */

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export interface LookupCacheOptions {
  /** How long an entry is served, in milliseconds; 0 disables caching. */
  ttlMs: number;
  /** Most entries held. */
  maxEntries: number;
  /** The clock, in epoch milliseconds (tests). */
  now: () => number;
}

/** A TTL cache with insertion-order eviction. */
export class LookupCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #options: LookupCacheOptions;

  public constructor(options: LookupCacheOptions) {
    this.#options = options;
  }

  /** The cached value of a key, if cached and fresh (`{ value }` so that `undefined` can be cached). */
  public get(key: string): { value: V } | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#options.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: entry.value };
  }

  /** Caches a value. */
  public set(key: string, value: V): void {
    if (this.#options.ttlMs <= 0) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: this.#options.now() + this.#options.ttlMs });
  }

  /** Returns the cached value, or loads, caches and returns it. */
  public async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit.value;
    const value = await load();
    this.set(key, value);
    return value;
  }

  /** Forgets everything. */
  public clear(): void {
    this.#entries.clear();
  }

  /** The number of entries held (fresh or not yet evicted). */
  public get size(): number {
    return this.#entries.size;
  }
}
