/**
 * The plots of BENCHMARKS.md, drawn from the results files alone (bench/results/*.json) into
 * `bench/plots/*.svg`, and the `plots:begin` / `plots:end` part of BENCHMARKS.md that shows them. Each
 * plot takes the full run's results when they hold what it draws, else the quick run's, and its caption
 * names the run, the date and the commit measured. `npm run bench` redraws them after every run and
 * `npm run bench:plots` redraws them from the results files already there.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHMARKS_MD, type Figure, formatNumber, type Histogram, ROOT, type SuiteResult } from './report';
import { barChart, columnChart, histogramChart } from './svg';

export const PLOTS_DIR = join(ROOT, 'bench', 'plots');

/** A plot: its file name, what it shows, and the SVG text. */
export interface Plot {
  file: string;
  /** A short name, the image's alternative text. */
  alt: string;
  caption: string;
  svg: string;
}

const runName = (result: SuiteResult): string =>
  `${result.mode === 'full' ? 'full' : 'quick'} run of ${result.finishedAt.slice(0, 10)}, ${result.source ?? 'unknown commit'}`;

/** The full run's result of a suite when `usable`, else the quick run's; none when neither is. */
const pick = (
  results: readonly SuiteResult[],
  suite: string,
  usable: (result: SuiteResult) => boolean,
): SuiteResult | undefined =>
  ['full', 'quick']
    .map((mode) => results.find((result) => result.suite === suite && result.mode === mode))
    .find((result) => result !== undefined && usable(result));

const figureOf = (result: SuiteResult, id: string): Figure | undefined =>
  result.figures.find((figure) => figure.id === id);

const valueOf = (result: SuiteResult, id: string): number | undefined => figureOf(result, id)?.value;

/** The query classes of a search result, in the order the suite ran them. */
const queryClasses = (result: SuiteResult): string[] =>
  Object.keys((result.parameters.queries as Record<string, unknown> | undefined) ?? {});

const SEARCH_PERCENTILES = ['p50', 'p95', 'p99'] as const;

/** Search latency per query class at the handler (p50, p95, p99), with the p50 target. */
const searchLatency = (results: readonly SuiteResult[]): Plot | undefined => {
  const result = pick(results, 'search', (candidate) =>
    queryClasses(candidate).every((name) => valueOf(candidate, `search.${name}.handler.p99`) !== undefined),
  );
  if (result === undefined) return undefined;
  const jobs = Number(result.parameters.jobs);
  return {
    file: 'search-latency.svg',
    alt: 'Search latency per query class',
    caption: `POST /search per query class at ${formatNumber(jobs)} jobs: the handler's latency (middy chain, criteria, engine, summaries), ${runName(result)}. The targets are p50 ≤ 5 ms and p99 ≤ 50 ms.`,
    svg: barChart({
      title: `Search latency per query class at ${formatNumber(jobs)} jobs (handler)`,
      axis: 'milliseconds',
      series: SEARCH_PERCENTILES.map((percentile) => percentile),
      rows: queryClasses(result).map((name) => ({
        label: name,
        values: SEARCH_PERCENTILES.map((percentile) => valueOf(result, `search.${name}.handler.${percentile}`) ?? 0),
      })),
      markers: [{ value: 5, label: 'p50 target 5 ms' }],
    }),
  };
};

/** The bucket below which a share of a histogram's samples falls. */
const quantileOf = (histogram: Histogram, share: number): number => {
  const total = histogram.counts.reduce((sum, count) => sum + count, 0);
  let seen = 0;
  for (const [index, count] of histogram.counts.entries()) {
    seen += count;
    if (seen >= share * total) return (index + 1) * histogram.bucketWidth;
  }
  return histogram.counts.length * histogram.bucketWidth;
};

/** The write-to-searchable delay distribution of the indexing suite's delay run, with p50, p99 and the target. */
const searchDelay = (results: readonly SuiteResult[]): Plot | undefined => {
  const result = pick(results, 'indexing', (candidate) => candidate.histograms?.delay !== undefined);
  const histogram = result?.histograms?.delay;
  if (result === undefined || histogram === undefined) return undefined;
  const p50 = valueOf(result, 'indexing.delay.p50');
  const p99 = valueOf(result, 'indexing.delay.p99');
  const rate = valueOf(result, 'indexing.delay.achieved-rate');
  return {
    file: 'search-delay.svg',
    alt: 'Write-to-searchable delay distribution',
    caption: `Delay from a job's write (acknowledged by DynamoDB Local) to its first appearance in a search, through the local stack's stream poller and indexer, at ${formatNumber(rate ?? Number.NaN)} writes/s, ${runName(result)}; checked every ${formatNumber(histogram.bucketWidth)} ms. The target is p99 ≤ 500 ms.`,
    svg: histogramChart({
      title: `Write-to-searchable delay at ${formatNumber(rate ?? Number.NaN)} writes/s`,
      axis: 'milliseconds from write to searchable',
      unit: histogram.unit,
      bucketWidth: histogram.bucketWidth,
      counts: histogram.counts,
      limit: Math.max(quantileOf(histogram, 0.999), 500),
      markers: [
        ...(p50 === undefined ? [] : [{ value: p50, label: `p50 ${formatNumber(p50)} ms` }]),
        ...(p99 === undefined ? [] : [{ value: p99, label: `p99 ${formatNumber(p99)} ms` }]),
        { value: 500, label: 'p99 target 500 ms' },
      ],
    }),
  };
};

/** Bulk indexing throughput per call size, beside one apply per document, with the 5,000 jobs/s target. */
const bulkThroughput = (results: readonly SuiteResult[]): Plot | undefined => {
  const result = pick(
    results,
    'indexing',
    (candidate) =>
      Array.isArray(candidate.parameters.batchSizes) &&
      valueOf(candidate, 'indexing.per-record.jobs-per-second') !== undefined,
  );
  if (result === undefined) return undefined;
  const perRecord = valueOf(result, 'indexing.per-record.jobs-per-second') as number;
  const sizes = (result.parameters.batchSizes as number[]).filter(
    (size) => valueOf(result, `indexing.bulk-${size}.jobs-per-second`) !== undefined,
  );
  return {
    file: 'bulk-throughput.svg',
    alt: 'Bulk indexing throughput per batch size',
    caption: `Documents written into the embedded engine per second, by documents per apply call (100 is the deployed stream batch, 500 the reindex batch), ${formatNumber(Number(result.parameters.documents))} documents each, interleaved, ${runName(result)}. The target is 5,000 jobs/s at 100 and at 500.`,
    svg: columnChart({
      title: 'Bulk indexing throughput per batch size',
      axis: 'jobs per second',
      columns: [
        { label: '1 per call', value: perRecord },
        ...sizes.map((size) => {
          const value = valueOf(result, `indexing.bulk-${size}.jobs-per-second`) as number;
          return { label: `${formatNumber(size)} per call`, value, note: `${formatNumber(value / perRecord)}×` };
        }),
      ],
      markers: [{ value: 5_000, label: 'target 5,000 jobs/s' }],
    }),
  };
};

/** Every plot the results files allow. */
export const drawPlots = (results: readonly SuiteResult[]): Plot[] =>
  [searchLatency(results), searchDelay(results), bulkThroughput(results)].filter(
    (plot): plot is Plot => plot !== undefined,
  );

export const PLOTS_BEGIN =
  '<!-- plots:begin (drawn by `npm run bench` and `npm run bench:plots`; edits here are overwritten) -->';
export const PLOTS_END = '<!-- plots:end -->';

/** The part of BENCHMARKS.md that shows the plots. */
export const renderPlotsSection = (plots: readonly Plot[]): string =>
  [
    PLOTS_BEGIN,
    '',
    ...plots.flatMap((plot) => [`![${plot.alt}](bench/plots/${plot.file})`, '', plot.caption, '']),
    PLOTS_END,
  ].join('\n');

/** Writes the plots into bench/plots/ and shows them in BENCHMARKS.md (before its Results, the first time). */
export const writePlots = (results: readonly SuiteResult[]): Plot[] => {
  const plots = drawPlots(results);
  mkdirSync(PLOTS_DIR, { recursive: true });
  for (const plot of plots) writeFileSync(join(PLOTS_DIR, plot.file), plot.svg);
  const section = renderPlotsSection(plots);
  const current = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
  const begin = current.indexOf(PLOTS_BEGIN);
  const end = current.indexOf(PLOTS_END);
  const resultsHeading = current.indexOf('\n## Results');
  const next =
    begin >= 0 && end > begin
      ? `${current.slice(0, begin)}${section}${current.slice(end + PLOTS_END.length)}`
      : resultsHeading >= 0
        ? `${current.slice(0, resultsHeading)}\n## Plots\n\n${section}\n${current.slice(resultsHeading)}`
        : `${current.trimEnd()}\n\n## Plots\n\n${section}\n`;
  writeFileSync(BENCHMARKS_MD, next);
  return plots;
};
