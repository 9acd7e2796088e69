/**
 * A small SVG chart writer for BENCHMARKS.md's plots: grouped horizontal bars, columns and a histogram,
 * each with a value axis starting at zero, labelled gridlines and dashed reference lines (targets,
 * percentiles). Output is a standalone SVG document (no script, no external font or stylesheet), so it
 * renders the same on GitHub, in an editor and offline.
 */

/** A dashed vertical (horizontal bars, histogram) or horizontal (columns) line at a value, with its label. */
export interface Marker {
  value: number;
  label: string;
}

/** Grouped horizontal bars: one row per category, one bar per series in each row. */
export interface BarChart {
  title: string;
  /** The value axis' caption (`ms at the handler`). */
  axis: string;
  series: string[];
  rows: { label: string; values: number[] }[];
  markers?: Marker[];
}

/** One column per category. */
export interface ColumnChart {
  title: string;
  axis: string;
  columns: { label: string; value: number; note?: string }[];
  markers?: Marker[];
}

/** Samples counted in equal buckets from zero, drawn as the share of all samples per bucket. */
export interface HistogramChart {
  title: string;
  /** The sample axis' caption (`milliseconds from write to searchable`). */
  axis: string;
  /** The samples' unit (`ms`). */
  unit: string;
  bucketWidth: number;
  counts: number[];
  markers?: Marker[];
  /** The axis ends here (samples beyond are counted in a note); default: the last non-empty bucket. */
  limit?: number;
}

/** Colours of the series (Paul Tol's bright scheme, distinguishable with the common colour deficiencies). */
const PALETTE = ['#4477AA', '#EE6677', '#228833', '#CCBB44', '#66CCEE', '#AA3377'];
const MARKER_COLOUR = '#555555';
/** A marker's label, haloed in white so it stays legible over bars and gridlines. */
const MARKER_TEXT = `fill="${MARKER_COLOUR}" stroke="#ffffff" stroke-width="3" paint-order="stroke"`;
const WIDTH = 760;
const FONT = 'font-family="Helvetica, Arial, sans-serif"';

/** Text for XML character data and attribute values. */
export const escapeXml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** A coordinate with at most one decimal. */
const px = (value: number): string => String(Math.round(value * 10) / 10);

/** A number for an axis or a label: thousands separated, at most three significant decimals. */
export const formatTick = (value: number): string =>
  Math.abs(value) >= 1000
    ? Math.round(value).toLocaleString('en-US')
    : Number(value.toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 3 });

/** A step of 1, 2, 2.5 or 5 × 10ⁿ that cuts [0, max] into about `count` intervals. */
export const niceStep = (max: number, count = 5): number => {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalised = raw / magnitude;
  const factor = normalised <= 1 ? 1 : normalised <= 2 ? 2 : normalised <= 2.5 ? 2.5 : normalised <= 5 ? 5 : 10;
  return factor * magnitude;
};

/** The axis' end (a whole number of steps at or above `max`) and its ticks. */
const axisOf = (max: number): { end: number; ticks: number[] } => {
  const step = niceStep(max);
  const end = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let tick = 0; tick <= end + step / 2; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return { end, ticks };
};

const text = (x: number, y: number, content: string, attributes = ''): string =>
  `<text x="${px(x)}" y="${px(y)}" ${attributes}>${escapeXml(content)}</text>`;

const document = (height: number, title: string, body: string[]): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${px(height)}" viewBox="0 0 ${WIDTH} ${px(height)}" ${FONT} font-size="12" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${px(height)}" fill="#ffffff"/>`,
    text(WIDTH / 2, 22, title, 'text-anchor="middle" font-size="14" font-weight="bold" fill="#222222"'),
    ...body,
    '</svg>',
    '',
  ].join('\n');

const legend = (series: string[], y: number): string[] =>
  series.flatMap((name, index) => {
    const x = 70 + index * 130;
    return [
      `<rect x="${px(x)}" y="${px(y - 9)}" width="12" height="10" fill="${PALETTE[index % PALETTE.length]}"/>`,
      text(x + 17, y, name, 'fill="#222222"'),
    ];
  });

/** Gridlines and tick labels of a horizontal value axis from `left` to `right`, under a plot `top`–`bottom`. */
const horizontalAxis = (
  axis: { end: number; ticks: number[] },
  frame: { left: number; right: number; top: number; bottom: number },
  caption: string,
  gridlines = true,
): string[] => {
  const x = (value: number): number => frame.left + (value / axis.end) * (frame.right - frame.left);
  return [
    ...axis.ticks.flatMap((tick) => [
      ...(gridlines
        ? [
            `<line x1="${px(x(tick))}" y1="${px(frame.top)}" x2="${px(x(tick))}" y2="${px(frame.bottom)}" stroke="#e3e3e3"/>`,
          ]
        : []),
      text(x(tick), frame.bottom + 16, formatTick(tick), 'text-anchor="middle" fill="#444444"'),
    ]),
    `<line x1="${px(frame.left)}" y1="${px(frame.bottom)}" x2="${px(frame.right)}" y2="${px(frame.bottom)}" stroke="#888888"/>`,
    text((frame.left + frame.right) / 2, frame.bottom + 34, caption, 'text-anchor="middle" fill="#222222"'),
  ];
};

/** Dashed vertical lines at marker values inside the axis, labelled at the top, staggered to stay apart. */
const verticalMarkers = (
  markers: readonly Marker[],
  x: (value: number) => number,
  end: number,
  frame: { top: number; bottom: number },
): string[] =>
  markers
    .filter((marker) => marker.value >= 0 && marker.value <= end)
    .flatMap((marker, index) => [
      `<line x1="${px(x(marker.value))}" y1="${px(frame.top - 4)}" x2="${px(x(marker.value))}" y2="${px(frame.bottom)}" stroke="${MARKER_COLOUR}" stroke-width="1.5" stroke-dasharray="5 4"/>`,
      // A label near the right edge stands left of its line, so the picture does not cut it off.
      x(marker.value) > WIDTH * 0.75
        ? text(x(marker.value) - 4, frame.top + 8 + index * 14, marker.label, `text-anchor="end" ${MARKER_TEXT}`)
        : text(x(marker.value) + 4, frame.top + 8 + index * 14, marker.label, MARKER_TEXT),
    ]);

/** Grouped horizontal bars, a row per category (labels on the left), values on a shared axis from 0. */
export const barChart = (chart: BarChart): string => {
  const barHeight = 9;
  const rowHeight = chart.series.length * barHeight + 12;
  const frame = { left: 200, right: WIDTH - 40, top: 62, bottom: 62 + chart.rows.length * rowHeight };
  const markers = chart.markers ?? [];
  const axis = axisOf(Math.max(0, ...chart.rows.flatMap((row) => row.values), ...markers.map((m) => m.value)));
  const x = (value: number): number => frame.left + (Math.max(0, value) / axis.end) * (frame.right - frame.left);
  const rows = chart.rows.flatMap((row, rowIndex) => {
    const top = frame.top + rowIndex * rowHeight + 6;
    return [
      text(
        frame.left - 8,
        top + (chart.series.length * barHeight) / 2 + 4,
        row.label,
        'text-anchor="end" fill="#222222"',
      ),
      ...row.values.flatMap((value, index) => {
        const y = top + index * barHeight;
        return [
          `<rect x="${px(frame.left)}" y="${px(y)}" width="${px(x(value) - frame.left)}" height="${barHeight - 1}" fill="${PALETTE[index % PALETTE.length]}"><title>${escapeXml(`${row.label}, ${chart.series[index] ?? ''}: ${formatTick(value)}`)}</title></rect>`,
          ...(index === row.values.length - 1
            ? [text(x(value) + 4, y + barHeight - 1, formatTick(value), 'font-size="10" fill="#444444"')]
            : []),
        ];
      }),
    ];
  });
  return document(frame.bottom + 44, chart.title, [
    ...legend(chart.series, 46),
    ...horizontalAxis(axis, frame, chart.axis),
    ...rows,
    ...verticalMarkers(markers, x, axis.end, frame),
  ]);
};

/** One column per category on a vertical axis from 0, each labelled with its value (and note) on top. */
export const columnChart = (chart: ColumnChart): string => {
  const frame = { left: 80, right: WIDTH - 30, top: 50, bottom: 330 };
  const markers = chart.markers ?? [];
  const axis = axisOf(Math.max(0, ...chart.columns.map((c) => c.value), ...markers.map((m) => m.value)));
  const y = (value: number): number => frame.bottom - (Math.max(0, value) / axis.end) * (frame.bottom - frame.top);
  const slot = (frame.right - frame.left) / Math.max(1, chart.columns.length);
  const columns = chart.columns.flatMap((column, index) => {
    const left = frame.left + index * slot + slot * 0.2;
    const centre = left + slot * 0.3;
    const label = column.note === undefined ? formatTick(column.value) : `${formatTick(column.value)} (${column.note})`;
    return [
      `<rect x="${px(left)}" y="${px(y(column.value))}" width="${px(slot * 0.6)}" height="${px(frame.bottom - y(column.value))}" fill="${PALETTE[0]}"><title>${escapeXml(`${column.label}: ${label}`)}</title></rect>`,
      text(centre, y(column.value) - 6, label, 'text-anchor="middle" fill="#222222"'),
      text(centre, frame.bottom + 18, column.label, 'text-anchor="middle" fill="#222222"'),
    ];
  });
  const grid = axis.ticks.flatMap((tick) => [
    `<line x1="${px(frame.left)}" y1="${px(y(tick))}" x2="${px(frame.right)}" y2="${px(y(tick))}" stroke="#e3e3e3"/>`,
    text(frame.left - 8, y(tick) + 4, formatTick(tick), 'text-anchor="end" fill="#444444"'),
  ]);
  const lines = markers
    .filter((marker) => marker.value >= 0 && marker.value <= axis.end)
    .flatMap((marker) => [
      `<line x1="${px(frame.left)}" y1="${px(y(marker.value))}" x2="${px(frame.right)}" y2="${px(y(marker.value))}" stroke="${MARKER_COLOUR}" stroke-width="1.5" stroke-dasharray="5 4"/>`,
      text(frame.left + 6, y(marker.value) - 5, marker.label, MARKER_TEXT),
    ]);
  return document(frame.bottom + 30, chart.title, [
    ...grid,
    `<line x1="${px(frame.left)}" y1="${px(frame.bottom)}" x2="${px(frame.right)}" y2="${px(frame.bottom)}" stroke="#888888"/>`,
    text(
      20,
      (frame.top + frame.bottom) / 2,
      chart.axis,
      `text-anchor="middle" fill="#222222" transform="rotate(-90 20 ${px((frame.top + frame.bottom) / 2)})"`,
    ),
    ...columns,
    ...lines,
  ]);
};

/** At most this many bars: narrower ones would be hairlines at the chart's width. */
const MAX_HISTOGRAM_BARS = 80;

/** The smallest of 1, 2, 5, 10, 20, 50, … at or above `factor`, so merged buckets keep round edges. */
const roundFactor = (factor: number): number => {
  for (let magnitude = 1; ; magnitude *= 10) {
    for (const step of [1, 2, 5]) if (step * magnitude >= factor) return step * magnitude;
  }
};

/** Counts of buckets `factor` times as wide. */
const mergeBuckets = (counts: readonly number[], factor: number): number[] =>
  Array.from({ length: Math.ceil(counts.length / factor) }, (_, index) =>
    counts.slice(index * factor, (index + 1) * factor).reduce((sum, count) => sum + count, 0),
  );

/**
 * A histogram as the share (%) of all samples per bucket; samples past `limit` are counted in a note.
 * Buckets are merged (by 2, 5, 10, …) when there would be more than {@link MAX_HISTOGRAM_BARS} bars.
 */
export const histogramChart = (input: HistogramChart): string => {
  const total = input.counts.reduce((sum, count) => sum + count, 0);
  const lastFilled = input.counts.reduce((last, count, index) => (count > 0 ? index : last), -1);
  const limit = input.limit ?? (lastFilled + 1) * input.bucketWidth;
  const markers = input.markers ?? [];
  const xAxis = axisOf(Math.max(limit, ...markers.map((marker) => marker.value)));
  const factor = roundFactor(Math.ceil(Math.min(limit, xAxis.end) / input.bucketWidth / MAX_HISTOGRAM_BARS));
  const chart = { ...input, bucketWidth: input.bucketWidth * factor, counts: mergeBuckets(input.counts, factor) };
  const shown = Math.ceil(Math.min(limit, xAxis.end) / chart.bucketWidth);
  const beyond = chart.counts.slice(shown).reduce((sum, count) => sum + count, 0);
  const share = (count: number): number => (total === 0 ? 0 : (100 * count) / total);
  const yAxis = axisOf(Math.max(0, ...chart.counts.slice(0, shown).map(share)));
  const frame = { left: 70, right: WIDTH - 30, top: 50, bottom: 320 };
  const x = (value: number): number => frame.left + (value / xAxis.end) * (frame.right - frame.left);
  const y = (value: number): number => frame.bottom - (value / yAxis.end) * (frame.bottom - frame.top);
  const bars = chart.counts
    .slice(0, shown)
    .flatMap((count, index) =>
      count === 0
        ? []
        : [
            `<rect x="${px(x(index * chart.bucketWidth))}" y="${px(y(share(count)))}" width="${px(Math.max(0.5, x(chart.bucketWidth) - frame.left - 0.5))}" height="${px(frame.bottom - y(share(count)))}" fill="${PALETTE[0]}"><title>${escapeXml(`${formatTick(index * chart.bucketWidth)}–${formatTick((index + 1) * chart.bucketWidth)}: ${count} (${formatTick(share(count))} %)`)}</title></rect>`,
          ],
    );
  const grid = yAxis.ticks.flatMap((tick) => [
    `<line x1="${px(frame.left)}" y1="${px(y(tick))}" x2="${px(frame.right)}" y2="${px(y(tick))}" stroke="#e3e3e3"/>`,
    text(frame.left - 8, y(tick) + 4, `${formatTick(tick)} %`, 'text-anchor="end" fill="#444444"'),
  ]);
  const note = `${total.toLocaleString('en-US')} samples in bars of ${formatTick(chart.bucketWidth)} ${chart.unit}${beyond > 0 ? `; ${beyond.toLocaleString('en-US')} past ${formatTick(shown * chart.bucketWidth)} ${chart.unit} not drawn` : ''}`;
  return document(frame.bottom + 46, chart.title, [
    ...grid,
    ...bars,
    ...horizontalAxis(xAxis, frame, chart.axis, false),
    ...verticalMarkers(markers, x, xAxis.end, frame),
    text(frame.right, frame.top - 8, note, 'text-anchor="end" fill="#444444" font-size="11"'),
  ]);
};
