/**
 * The benchmark plotter (bench/lib/svg.ts, bench/lib/plots.ts) writes well-formed, self-contained SVG for
 * the data it is given, and draws BENCHMARKS.md's plots from results files alone.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { drawPlots } from '../../../bench/lib/plots';
import type { Figure, SuiteResult } from '../../../bench/lib/report';
import { histogramOf } from '../../../bench/lib/report';
import { barChart, columnChart, histogramChart, niceStep } from '../../../bench/lib/svg';

type Node = Record<string, unknown>;

/** The document's root `<svg>` element, after checking that the text is well-formed XML. */
const parseSvg = (svg: string): Node => {
  expect(XMLValidator.validate(svg)).toBe(true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(svg) as Node;
  expect(Object.keys(parsed)).toEqual(['svg']);
  return parsed.svg as Node;
};

const asList = (value: unknown): Node[] =>
  (value === undefined ? [] : Array.isArray(value) ? value : [value]) as Node[];

/** The rectangles that draw data (each carries a tooltip `<title>`), with their sizes. */
const dataRects = (root: Node): { width: number; height: number; title: string }[] =>
  asList(root.rect)
    .filter((rect) => rect.title !== undefined)
    .map((rect) => ({ width: Number(rect['@width']), height: Number(rect['@height']), title: String(rect.title) }));

/** Every number written into an attribute; none may be NaN or infinite. */
const numbersIn = (svg: string): number[] =>
  [...svg.matchAll(/ (?:x|y|x1|x2|y1|y2|width|height)="([^"]*)"/g)].map((match) => Number(match[1]));

describe('the SVG charts', () => {
  it('write grouped bars as a standalone SVG document, one bar per value, labels escaped', () => {
    const svg = barChart({
      title: 'Latency <per class> & more',
      axis: 'milliseconds',
      series: ['p50', 'p99'],
      rows: [
        { label: 'one "word"', values: [1.2, 3.4] },
        { label: 'guid', values: [0.3, 0.7] },
        { label: 'file & name', values: [0, 6.5] },
      ],
      markers: [{ value: 5, label: 'target 5 ms' }],
    });
    const root = parseSvg(svg);
    expect(root['@xmlns']).toBe('http://www.w3.org/2000/svg');
    expect(root['@viewBox']).toMatch(/^0 0 \d+ \d+(\.\d)?$/);
    expect(root.title).toBe('Latency <per class> & more');
    const bars = dataRects(root);
    expect(bars.map((bar) => bar.title)).toEqual([
      'one "word", p50: 1.2',
      'one "word", p99: 3.4',
      'guid, p50: 0.3',
      'guid, p99: 0.7',
      'file & name, p50: 0',
      'file & name, p99: 6.5',
    ]);
    // Widths are proportional to the values on one axis from zero.
    expect(bars[1]!.width / bars[0]!.width).toBeCloseTo(3.4 / 1.2, 1);
    expect(bars[4]!.width).toBe(0);
    expect(numbersIn(svg).every(Number.isFinite)).toBe(true);
    expect(svg).not.toMatch(/<script|href=/);
  });

  it('write columns with their values and a target line', () => {
    const svg = columnChart({
      title: 'Throughput',
      axis: 'jobs per second',
      columns: [
        { label: '1 per call', value: 3_216 },
        { label: '100 per call', value: 9_763, note: '3.04×' },
      ],
      markers: [{ value: 5_000, label: 'target 5,000 jobs/s' }],
    });
    const root = parseSvg(svg);
    const columns = dataRects(root);
    expect(columns.map((column) => column.title)).toEqual(['1 per call: 3,216', '100 per call: 9,763 (3.04×)']);
    expect(columns[1]!.height / columns[0]!.height).toBeCloseTo(9_763 / 3_216, 1);
    expect(asList(root.text).map((node) => (typeof node === 'object' ? node['#text'] : node))).toContain(
      'target 5,000 jobs/s',
    );
    expect(numbersIn(svg).every(Number.isFinite)).toBe(true);
  });

  it('write a histogram as shares of all samples, counting the samples past its end in a note', () => {
    const histogram = histogramOf([5, 12, 14, 18, 25, 25, 31, 990], 10, 'ms');
    expect(histogram.counts.slice(0, 4)).toEqual([1, 3, 2, 1]);
    const svg = histogramChart({
      title: 'Delay',
      axis: 'milliseconds',
      unit: 'ms',
      bucketWidth: histogram.bucketWidth,
      counts: histogram.counts,
      limit: 40,
      markers: [{ value: 15, label: 'p50 15 ms' }],
    });
    const root = parseSvg(svg);
    const bars = dataRects(root);
    expect(bars.map((bar) => bar.title)).toEqual([
      '0–10: 1 (12.5 %)',
      '10–20: 3 (37.5 %)',
      '20–30: 2 (25 %)',
      '30–40: 1 (12.5 %)',
    ]);
    expect(svg).toContain('8 samples in bars of 10 ms; 1 past 40 ms not drawn');
    expect(numbersIn(svg).every(Number.isFinite)).toBe(true);
  });

  it('merge buckets into round wider ones rather than draw hairlines', () => {
    const counts = Array.from({ length: 600 }, (_, index) => (index % 7) + 1);
    const root = parseSvg(
      histogramChart({ title: 'Delay', axis: 'milliseconds', unit: 'ms', bucketWidth: 10, counts }),
    );
    const bars = dataRects(root);
    expect(bars).toHaveLength(60);
    expect(bars[0]!.title).toMatch(/^0–100: \d+ /);
    expect(JSON.stringify(root)).toContain('in bars of 100 ms');
  });

  it('write a well-formed chart of no data at all', () => {
    for (const svg of [
      barChart({ title: 'empty', axis: 'ms', series: [], rows: [] }),
      columnChart({ title: 'empty', axis: 'jobs/s', columns: [] }),
      histogramChart({ title: 'empty', axis: 'ms', unit: 'ms', bucketWidth: 10, counts: [] }),
    ]) {
      parseSvg(svg);
      expect(numbersIn(svg).every(Number.isFinite)).toBe(true);
    }
  });

  it('cut an axis into steps of 1, 2, 2.5 or 5 × 10ⁿ', () => {
    expect([6.85, 13_573, 0.9, 283, 1].map((max) => niceStep(max))).toEqual([2, 5_000, 0.2, 100, 0.2]);
  });
});

const figure = (id: string, value: number): Figure => ({ id, label: id, value, unit: '' });

const result = (suite: string, mode: 'full' | 'quick', parts: Partial<SuiteResult>): SuiteResult => ({
  suite,
  title: suite,
  mode,
  startedAt: '2026-11-26T08:00:00.000Z',
  finishedAt: '2026-11-26T09:00:00.000Z',
  machine: { cpus: 2, cpuModel: 'test', memoryGiB: 1, node: 'v24', platform: 'linux-x64' },
  source: 'abc1234',
  parameters: {},
  figures: [],
  notes: [],
  ...parts,
});

describe('the plots of BENCHMARKS.md', () => {
  const search = result('search', 'full', {
    parameters: { jobs: 1_100_000, queries: { 'one-word': {}, guid: {} } },
    figures: ['one-word', 'guid'].flatMap((name, index) =>
      ['p50', 'p95', 'p99'].map((percentile, rank) => figure(`search.${name}.handler.${percentile}`, index + rank + 1)),
    ),
  });
  const indexing = (mode: 'full' | 'quick', withHistogram: boolean): SuiteResult =>
    result('indexing', mode, {
      parameters: { documents: 10_000, batchSizes: [100, 500] },
      figures: [
        figure('indexing.per-record.jobs-per-second', mode === 'full' ? 3_000 : 2_000),
        figure('indexing.bulk-100.jobs-per-second', 9_000),
        figure('indexing.bulk-500.jobs-per-second', 12_000),
        figure('indexing.delay.p50', 130),
        figure('indexing.delay.p99', 280),
        figure('indexing.delay.achieved-rate', 200),
      ],
      ...(withHistogram ? { histograms: { delay: histogramOf([120, 130, 135, 280], 10, 'ms') } } : {}),
    });

  it('draw search latency per class, the delay distribution and bulk throughput per batch size', () => {
    const plots = drawPlots([search, indexing('full', true)]);
    expect(plots.map((plot) => plot.file)).toEqual(['search-latency.svg', 'search-delay.svg', 'bulk-throughput.svg']);
    for (const plot of plots) parseSvg(plot.svg);
    expect(dataRects(parseSvg(plots[0]!.svg))).toHaveLength(6);
    expect(plots[0]!.caption).toContain('full run of 2026-11-26, abc1234');
  });

  it('take the quick run where only it holds what a plot draws, and name it', () => {
    const plots = drawPlots([indexing('full', false), indexing('quick', true)]);
    const delay = plots.find((plot) => plot.file === 'search-delay.svg');
    const throughput = plots.find((plot) => plot.file === 'bulk-throughput.svg');
    expect(delay?.caption).toContain('quick run of 2026-11-26');
    expect(throughput?.caption).toContain('full run of 2026-11-26');
    expect(plots.map((plot) => plot.file)).not.toContain('search-latency.svg');
  });
});
