/**
 * Benchmark results: the figures a suite measured, written as `bench/results/<suite>[-quick].json`, and
 * the generated tables of BENCHMARKS.md (between its `bench:begin` / `bench:end` markers).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Machine, machineLabel } from './machine';
import { round } from './stats';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const BENCHMARKS_MD = join(ROOT, 'BENCHMARKS.md');

/** Whether a run is the full one or `--quick`. */
export type Mode = 'full' | 'quick';

/** A number measured beside a figure, in the same run, to compare it with. */
export interface Baseline {
  label: string;
  value: number;
  unit: string;
}

/** A target a figure is held to. */
export interface Target {
  /** The target as stated (`p99 ≤ 50 ms`). */
  text: string;
  met: boolean;
  /**
   * Why the target is missed, from what the same run measured; set whenever `met` is false, so that no
   * missed target stands in BENCHMARKS.md without its reason.
   */
  missedBecause?: string;
}

/** One measured figure. */
export interface Figure {
  /** Stable key: `search.handler.one-word.p50`. */
  id: string;
  /** What it is, for a reader. */
  label: string;
  value: number;
  unit: string;
  baseline?: Baseline;
  /** How the value compares with the baseline (`212× faster`, `1.08× the baseline`). */
  ratio?: { value: number; text: string };
  target?: Target;
}

/**
 * A distribution of samples, kept for the plots (bench/lib/plots.ts) and not printed in the tables:
 * `counts[i]` samples fell in `[i × bucketWidth, (i + 1) × bucketWidth)`.
 */
export interface Histogram {
  unit: string;
  bucketWidth: number;
  counts: number[];
}

/** The histogram of samples in buckets of `bucketWidth` (a sample on a boundary counts in the bucket above). */
export const histogramOf = (samples: readonly number[], bucketWidth: number, unit: string): Histogram => {
  const counts: number[] = [];
  for (const sample of samples) {
    const bucket = Math.max(0, Math.floor(sample / bucketWidth));
    while (counts.length <= bucket) counts.push(0);
    counts[bucket] = (counts[bucket] as number) + 1;
  }
  return { unit, bucketWidth, counts };
};

/** What one suite measured in one run. */
export interface SuiteResult {
  suite: string;
  title: string;
  mode: Mode;
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  /** The commit measured (`+dirty`: with uncommitted changes to functions/, local/ or lib/). */
  source?: string;
  /** The parameters the suite ran with (scale, iterations, …). */
  parameters: Record<string, unknown>;
  figures: Figure[];
  /** Observations the numbers alone do not say. */
  notes: string[];
  /** Distributions the plots draw, by name (`delay`). */
  histograms?: Record<string, Histogram>;
}

/** The results file of a suite in a mode. */
export const resultPath = (suite: string, mode: Mode): string =>
  join(RESULTS_DIR, mode === 'full' ? `${suite}.json` : `${suite}-quick.json`);

export const writeResult = (result: SuiteResult): string => {
  const path = resultPath(result.suite, result.mode);
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
};

/** Reads a suite's result of a mode, if one was written. */
export const readResult = (suite: string, mode: Mode): SuiteResult | undefined => {
  const path = resultPath(suite, mode);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as SuiteResult) : undefined;
};

/** Every result file present, full runs first. */
export const readAllResults = (): SuiteResult[] =>
  readdirSync(RESULTS_DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')) as SuiteResult)
    .sort((a, b) => (a.mode === b.mode ? 0 : a.mode === 'full' ? -1 : 1));

/** A speed-up figure: how many times faster the value is than the baseline (both durations). */
export const speedup = (value: number, baseline: number): Figure['ratio'] => {
  const ratio = baseline / value;
  return { value: round(ratio), text: `${formatNumber(ratio)}× faster` };
};

/** A proportion figure: the value as a multiple of the baseline. */
export const proportion = (value: number, baseline: number, what = 'the baseline'): Figure['ratio'] => {
  const ratio = value / baseline;
  return { value: round(ratio), text: `${formatNumber(ratio)}× ${what}` };
};

/** A number as a reader wants it: three significant figures, thousands separated. */
export const formatNumber = (value: number): string => {
  if (!Number.isFinite(value)) return String(value);
  const rounded = round(value);
  return Math.abs(rounded) >= 1000
    ? Math.round(rounded).toLocaleString('en-US')
    : rounded.toLocaleString('en-US', { maximumFractionDigits: 3 });
};

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** Why a missed target is missed; a result written before reasons were recorded says that it has none. */
const missedReason = (target: Target): string => target.missedBecause ?? 'no reason recorded by this run';

const targetCell = (target: Target): string =>
  target.met ? `✅ met: ${target.text}` : `❌ missed: ${target.text} — ${missedReason(target)}`;

const figureRow = (figure: Figure, result: SuiteResult): string => {
  const baseline = figure.baseline
    ? `${formatNumber(figure.baseline.value)} ${figure.baseline.unit} (${figure.baseline.label})`
    : '—';
  const target = figure.target ? targetCell(figure.target) : '—';
  return `| ${[
    figure.label,
    `${formatNumber(figure.value)} ${figure.unit}`,
    baseline,
    figure.ratio?.text ?? '—',
    target,
    machineLabel(result.machine),
    result.finishedAt.slice(0, 10),
  ]
    .map(cell)
    .join(' | ')} |`;
};

const suiteSection = (result: SuiteResult): string[] => [
  `#### ${result.title} (\`${result.suite}\`, ${result.mode} run)`,
  '',
  `Source: ${result.source ?? 'unknown'}. Parameters: ${Object.entries(result.parameters)
    .map(([key, value]) => `${key} = ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('; ')}.`,
  '',
  '| figure | value | baseline (same run) | ratio | target | machine | date |',
  '|---|---|---|---|---|---|---|',
  ...result.figures.map((figure) => figureRow(figure, result)),
  '',
  ...(result.notes.length === 0 ? [] : [...result.notes.map((note) => `- ${note}`), '']),
];

const targetSummary = (results: SuiteResult[]): string[] => {
  const targeted = results.flatMap((result) =>
    result.figures.filter((figure) => figure.target !== undefined).map((figure) => ({ figure, result })),
  );
  const met = targeted.filter(({ figure }) => figure.target?.met).length;
  return [
    `Targets met: **${met} of ${targeted.length}**.`,
    '',
    ...(targeted.length === met
      ? []
      : [
          'Missed:',
          '',
          ...targeted
            .filter(({ figure }) => !figure.target?.met)
            .map(
              ({ figure }) =>
                `- ${figure.label}: ${formatNumber(figure.value)} ${figure.unit} (target ${figure.target?.text}). Why: ${missedReason(figure.target as Target)}`,
            ),
          '',
        ]),
  ];
};

/** The generated part of BENCHMARKS.md: one section per mode, one table per suite. */
export const renderTables = (results: SuiteResult[]): string => {
  const lines: string[] = [];
  for (const mode of ['full', 'quick'] as const) {
    const ofMode = results.filter((result) => result.mode === mode);
    if (ofMode.length === 0) continue;
    lines.push(`### ${mode === 'full' ? 'Full run' : 'Quick run (`--quick`)'}`, '', ...targetSummary(ofMode));
    for (const result of ofMode) lines.push(...suiteSection(result));
  }
  return lines.join('\n');
};

export const BEGIN_MARKER = '<!-- bench:begin (generated by `npm run bench`; edits here are overwritten) -->';
export const END_MARKER = '<!-- bench:end -->';

/** Replaces the generated part of BENCHMARKS.md (appending the markers when the file has none). */
export const updateBenchmarksMd = (results: SuiteResult[]): void => {
  const generated = `${BEGIN_MARKER}\n\n${renderTables(results)}\n${END_MARKER}`;
  const current = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, 'utf8') : '# Benchmarks\n';
  const begin = current.indexOf(BEGIN_MARKER);
  const end = current.indexOf(END_MARKER);
  const next =
    begin >= 0 && end > begin
      ? `${current.slice(0, begin)}${generated}${current.slice(end + END_MARKER.length)}`
      : `${current.trimEnd()}\n\n## Results\n\n${generated}\n`;
  writeFileSync(BENCHMARKS_MD, next);
};
