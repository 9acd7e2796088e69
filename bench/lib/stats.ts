/**
 * Summaries of measured samples: nearest-rank percentiles and the median.
 */

/** Latency percentiles of a set of samples, in milliseconds. */
export interface LatencySummary {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** The nearest-rank percentile `p` (0–100) of ascending samples. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
};

/** p50/p95/p99/max of samples (any order). */
export const summarize = (samples: readonly number[]): LatencySummary => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
};

/** The median of samples. */
export const median = (samples: readonly number[]): number =>
  percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );

/** Rounds to a few significant figures for reports. */
export const round = (value: number, digits = 3): number => {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const factor = 10 ** Math.max(0, digits - 1 - magnitude);
  return Math.round(value * factor) / factor;
};
