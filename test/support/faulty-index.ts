/**
 * A fault-injecting decorator around a real SearchIndex, for tests of the indexing pipeline: it can
 * make chosen jobs fail inside a bulk request, make whole bulk requests throw, or make them time out,
 * a given number of times. Everything else goes to the real engine untouched.
 */
import type {
  IndexedVersion,
  IndexHealth,
  IndexOperation,
  IndexOutcome,
  IndexWriter,
  SearchDocument,
  SearchIndex,
  SearchQuery,
  SearchResult,
} from '../../functions/search/search-index';

/** The error an injected whole-request failure throws. */
export class InjectedIndexError extends Error {
  public constructor(message = 'injected bulk request failure') {
    super(message);
    this.name = 'InjectedIndexError';
  }
}

/** The error an injected timeout throws once its delay has passed (what an HTTP client would raise). */
export class InjectedTimeoutError extends Error {
  public constructor(ms: number) {
    super(`injected timeout after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

interface JobFault {
  jobIds: ReadonlySet<number>;
  status: 'retryable' | 'rejected';
  remaining: number;
}

interface RequestFault {
  kind: 'throw' | 'timeout' | 'delay';
  delayMs: number;
  remaining: number;
}

const jobIdOf = (operation: IndexOperation): number =>
  operation.type === 'upsert' ? operation.document.summary.id : operation.jobId;

export class FaultyIndex implements SearchIndex {
  /** Every apply() call that reached this decorator, with its operations. */
  public readonly calls: IndexOperation[][] = [];
  private readonly inner: SearchIndex;
  private readonly jobFaults: JobFault[] = [];
  private readonly requestFaults: RequestFault[] = [];

  public constructor(inner: SearchIndex) {
    this.inner = inner;
  }

  /** The next `times` operations on these jobs answer `status` instead of being written. */
  public failJobs(jobIds: Iterable<number>, options: { times?: number; status?: 'retryable' | 'rejected' } = {}): this {
    this.jobFaults.push({
      jobIds: new Set(jobIds),
      status: options.status ?? 'retryable',
      remaining: options.times ?? 1,
    });
    return this;
  }

  /** The next `times` apply() calls throw without writing anything. */
  public failRequests(times = 1): this {
    this.requestFaults.push({ kind: 'throw', delayMs: 0, remaining: times });
    return this;
  }

  /** The next `times` apply() calls wait `delayMs`, then throw a timeout without writing anything. */
  public timeOutRequests(delayMs: number, times = 1): this {
    this.requestFaults.push({ kind: 'timeout', delayMs, remaining: times });
    return this;
  }

  /** The next `times` apply() calls wait `delayMs`, then go to the real engine (a slow request). */
  public delayRequests(delayMs: number, times = 1): this {
    this.requestFaults.push({ kind: 'delay', delayMs, remaining: times });
    return this;
  }

  /** Whether every injected fault has been used up. */
  public get exhausted(): boolean {
    return (
      this.jobFaults.every((fault) => fault.remaining <= 0) && this.requestFaults.every((fault) => fault.remaining <= 0)
    );
  }

  public async apply(operations: IndexOperation[]): Promise<IndexOutcome[]> {
    this.calls.push(operations);
    const requestFault = this.requestFaults.find((fault) => fault.remaining > 0);
    if (requestFault !== undefined) {
      requestFault.remaining -= 1;
      if (requestFault.kind !== 'throw') await new Promise((resolve) => setTimeout(resolve, requestFault.delayMs));
      if (requestFault.kind === 'timeout') throw new InjectedTimeoutError(requestFault.delayMs);
      if (requestFault.kind === 'throw') throw new InjectedIndexError();
    }
    const injected = new Map<number, IndexOutcome>();
    operations.forEach((operation, position) => {
      const fault = this.jobFaults.find(
        (candidate) => candidate.remaining > 0 && candidate.jobIds.has(jobIdOf(operation)),
      );
      if (fault === undefined) return;
      fault.remaining -= 1;
      injected.set(position, { status: fault.status, reason: `injected ${fault.status} failure` });
    });
    const passed = operations.filter((_, position) => !injected.has(position));
    const outcomes = passed.length === 0 ? [] : await this.inner.apply(passed);
    let next = 0;
    return operations.map((_, position) => injected.get(position) ?? (outcomes[next++] as IndexOutcome));
  }

  public search(query: SearchQuery): Promise<SearchResult> {
    return this.inner.search(query);
  }

  public versions(): AsyncIterable<IndexedVersion> {
    return this.inner.versions();
  }

  public get(jobId: number): Promise<SearchDocument | undefined> {
    return this.inner.get(jobId);
  }

  public getMany(jobIds: readonly number[]): Promise<Map<number, SearchDocument>> {
    return this.inner.getMany(jobIds);
  }

  public health(): Promise<IndexHealth> {
    return this.inner.health();
  }

  /** Rebuilds the inner index; the writer handed to `fill` is this one, so injected faults apply to it too. */
  public rebuild<T>(fill: (writer: IndexWriter) => Promise<T>): Promise<T> {
    return this.inner.rebuild(() => fill(this));
  }

  public clear(): Promise<void> {
    return this.inner.clear();
  }

  public close(): Promise<void> {
    return this.inner.close();
  }
}
