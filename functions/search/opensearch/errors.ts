/** The OpenSearch engine's own errors (no HTTP: the callers decide what an operator or a client is told). */

/** A rebuild's index was deleted while the rebuild filled it: a newer rebuild went live and retired it. */
export class RebuildSupersededError extends Error {
  public readonly index: string;

  public constructor(index: string) {
    super(
      `The index ${index} this rebuild was filling was deleted: a newer rebuild has gone live and retired it, ` +
        'so that one serves searches now.',
    );
    this.name = 'RebuildSupersededError';
    this.index = index;
  }
}
