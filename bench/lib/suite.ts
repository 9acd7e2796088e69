/**
 * What every benchmark suite shares: the run mode (`--quick` or full), the scales of each mode, and the
 * runner that times a suite and writes its result file.
 */
import { execFileSync } from 'node:child_process';
import type { Population } from './generator';
import { machine } from './machine';
import { type Figure, type Histogram, type Mode, type SuiteResult, writeResult } from './report';

/** The mode of this process: `--quick` on the command line, else full. */
export const modeOf = (argv: readonly string[] = process.argv): Mode => (argv.includes('--quick') ? 'quick' : 'full');

/** The scale of each mode. */
export interface Scale {
  /** The jobs the search index holds. */
  searchPopulation: Population;
  /** The jobs written to DynamoDB Local for the Scan baseline. */
  scanPopulation: Population;
  /** How many of `scanPopulation`'s jobs are really written (the rest is extrapolated linearly). */
  scanJobsWritten: number;
  /** Full-table scans per measurement. */
  scanRuns: number;
  /** Timed runs per query class (after `warmup` untimed ones). */
  searchRuns: number;
  warmup: number;
  /** Documents per indexing-throughput measurement. */
  indexingDocuments: number;
  /** Seconds of steady writes for the search-delay measurement. */
  delaySeconds: number;
  /** Writes per second for the search-delay measurement. */
  delayRate: number;
  /** Fresh processes per bundle for the init-time median. */
  initRuns: number;
  /** Jobs imported by each import measurement. */
  importJobs: number;
  /** Interleaved rounds of the import measurements (import, BatchWrite, raw transactions). */
  importRounds: number;
}

/** The 100,000-job population of the Scan baseline (and of the quick search index). */
const HUNDRED_THOUSAND: Population = { jobs: 90_000, accounts: 1_000, largeAccountJobs: 10_000 };

export const SCALES: Record<Mode, Scale> = {
  full: {
    searchPopulation: { jobs: 1_000_000, accounts: 1_000, largeAccountJobs: 100_000 },
    scanPopulation: HUNDRED_THOUSAND,
    scanJobsWritten: 100_000,
    // One full Scan of ~600,000 items takes about 16 minutes in DynamoDB Local here; once is enough.
    scanRuns: 1,
    searchRuns: 300,
    warmup: 20,
    indexingDocuments: 50_000,
    delaySeconds: 60,
    delayRate: 200,
    initRuns: 20,
    importJobs: 3_000,
    importRounds: 5,
  },
  quick: {
    searchPopulation: HUNDRED_THOUSAND,
    scanPopulation: HUNDRED_THOUSAND,
    scanJobsWritten: 2_000,
    scanRuns: 2,
    searchRuns: 100,
    warmup: 10,
    indexingDocuments: 10_000,
    delaySeconds: 15,
    delayRate: 200,
    initRuns: 20,
    importJobs: 1_000,
    importRounds: 3,
  },
};

/** The value of a `--name=value` argument. */
export const argValue = (name: string, argv: readonly string[] = process.argv): string | undefined =>
  argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

/** The scale of a mode, with `--scan-jobs=N` overriding how many Scan-baseline jobs are written. */
export const scaleOf = (mode: Mode, argv: readonly string[] = process.argv): Scale => {
  const scanJobs = Number(argValue('scan-jobs', argv));
  const scale = SCALES[mode];
  return Number.isInteger(scanJobs) && scanJobs > 0 ? { ...scale, scanJobsWritten: scanJobs } : scale;
};

/** What a suite body receives and returns. */
export interface SuiteContext {
  mode: Mode;
  scale: Scale;
  /** Progress on standard error. */
  log(message: string): void;
}

export interface SuiteOutput {
  parameters: Record<string, unknown>;
  figures: Figure[];
  notes?: string[];
  histograms?: Record<string, Histogram>;
}

/** Runs a suite body in this process and writes `bench/results/<suite>[-quick].json`. */
export const runSuite = async (
  suite: string,
  title: string,
  body: (context: SuiteContext) => Promise<SuiteOutput>,
): Promise<SuiteResult> => {
  const mode = modeOf();
  const startedAt = new Date().toISOString();
  const log = (message: string): void => {
    process.stderr.write(`[${suite}] ${message}\n`);
  };
  const output = await body({ mode, scale: scaleOf(mode), log });
  const result: SuiteResult = {
    suite,
    title,
    mode,
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: machine(),
    source: sourceVersion(),
    parameters: output.parameters,
    figures: output.figures,
    notes: output.notes ?? [],
    ...(output.histograms === undefined ? {} : { histograms: output.histograms }),
  };
  log(`wrote ${writeResult(result)}`);
  return result;
};

/** The commit the working tree is at, marked `+dirty` when it has uncommitted changes. */
export const sourceVersion = (): string => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'functions', 'local', 'lib'], {
      encoding: 'utf8',
    }).trim();
    return dirty.length > 0 ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
};

/** Sleeps (used between paced writes and polls; never spins). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
