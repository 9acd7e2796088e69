/**
 * A small time-bounded cache for authentication lookups, per Lambda container. It remembers negative
 * answers too (an unknown token is not looked up again within the TTL), but in a bounded map of their
 * own: anyone can send random tokens, and each one is a negative answer, so if they shared one map
 * with the real clients and sessions a flood of them would evict every real entry and turn each
 * request into a table read. Each map forgets its oldest entries first.
 */

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export interface LookupCacheOptions {
  /** How long an entry is served, in milliseconds; 0 disables caching. */
  ttlMs: number;
  /** Most positive entries (a value was found) held. */
  maxEntries: number;
  /** Most negative entries (nothing was found) held; they never displace positive ones. */
  maxNegativeEntries: number;
  /** The clock, in epoch milliseconds (tests). */
  now: () => number;
}

/** A TTL cache with insertion-order eviction, positive and negative answers bounded apart. */
export class LookupCache<V> {
  readonly #found = new Map<string, Entry<V>>();
  readonly #missing = new Map<string, Entry<undefined>>();
  readonly #options: LookupCacheOptions;

  public constructor(options: LookupCacheOptions) {
    this.#options = options;
  }

  /** The cached answer of a key, if cached and fresh (`{ value: undefined }` is a cached miss). */
  public get(key: string): { value: V | undefined } | undefined {
    const entry = this.#found.get(key) ?? this.#missing.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#options.now()) {
      this.#found.delete(key);
      this.#missing.delete(key);
      return undefined;
    }
    return { value: entry.value };
  }

  /** Caches an answer; `undefined` is a miss and goes to the negative side. */
  public set(key: string, value: V | undefined): void {
    if (this.#options.ttlMs <= 0) return;
    this.#found.delete(key);
    this.#missing.delete(key);
    const expiresAt = this.#options.now() + this.#options.ttlMs;
    if (value === undefined) {
      insertBounded(this.#missing, this.#options.maxNegativeEntries, key, { value, expiresAt });
    } else {
      insertBounded(this.#found, this.#options.maxEntries, key, { value, expiresAt });
    }
  }

  /** Returns the cached answer, or loads, caches and returns it. A failed load caches nothing. */
  public async getOrLoad(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return hit.value;
    const value = await load();
    this.set(key, value);
    return value;
  }

  /** Forgets one key (a session ended in this container). */
  public delete(key: string): void {
    this.#found.delete(key);
    this.#missing.delete(key);
  }

  /** Forgets everything. */
  public clear(): void {
    this.#found.clear();
    this.#missing.clear();
  }

  /** The number of entries held on both sides (fresh or not yet evicted). */
  public get size(): number {
    return this.#found.size + this.#missing.size;
  }
}

/** Inserts an entry, first dropping the oldest ones until there is room under `max`. */
const insertBounded = <E>(entries: Map<string, E>, max: number, key: string, entry: E): void => {
  if (max <= 0) return;
  while (entries.size >= max) {
    const oldest = entries.keys().next();
    if (oldest.done) break;
    entries.delete(oldest.value);
  }
  entries.set(key, entry);
};
