/**
 * A progress bar for long CLI commands (import, reindex), written to stderr so stdout stays clean for
 * results. On an interactive terminal it redraws one line in place; when stderr is not a TTY or
 * `CI=true` it prints an occasional plain line instead (every 10 % or every few seconds), so logs stay
 * readable. Both show the rate so far and, when the total is known, the time left at that rate.
 */

/** Where the bar writes: a stream with an optional TTY flag (process.stderr by default). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** What is being done, printed first: `Importing`. */
  label: string;
  /** The amount of work when known in advance (can also be given to each update). */
  total?: number;
  /** The unit counted: `jobs`, `bytes`. Byte counts print as KiB/MiB. */
  unit?: string;
  stream?: ProgressStream;
  /** Redraw in place; defaults to `stream.isTTY && CI is not true`. */
  interactive?: boolean;
  /** Least time between two redraws on a terminal, in milliseconds. */
  redrawIntervalMs?: number;
  /** Most time between two plain lines when not interactive, in milliseconds. */
  plainIntervalMs?: number;
  /** The clock (tests pass their own). */
  now?: () => number;
}

export interface ProgressBar {
  /** Reports how much is done (and optionally the total and a short detail such as `3 failed`). */
  update(done: number, total?: number, detail?: string): void;
  /** Prints the final state and ends the line. */
  finish(message?: string): void;
}

const BAR_WIDTH = 24;

const isCi = (): boolean => /^(1|true)$/i.test(process.env.CI?.trim() ?? '');

const formatAmount = (value: number, unit: string | undefined): string => {
  if (unit !== 'bytes') return `${Math.round(value).toLocaleString('en-US')}${unit === undefined ? '' : ` ${unit}`}`;
  if (value < 1024) return `${value} B`;
  if (value < 1024 ** 2) return `${(value / 1024).toFixed(1)} KiB`;
  if (value < 1024 ** 3) return `${(value / 1024 ** 2).toFixed(1)} MiB`;
  return `${(value / 1024 ** 3).toFixed(2)} GiB`;
};

/** A duration for humans: `45s`, `12m 05s`, `3h 20m`. */
export const formatDuration = (seconds: number): string => {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
};

/** Creates a progress bar; nothing is printed until the first update. */
export const createProgressBar = (options: ProgressOptions): ProgressBar => {
  const stream = options.stream ?? process.stderr;
  const interactive = options.interactive ?? (stream.isTTY === true && !isCi());
  const redrawIntervalMs = options.redrawIntervalMs ?? 100;
  const plainIntervalMs = options.plainIntervalMs ?? 5_000;
  const now = options.now ?? Date.now;
  const startedAt = now();
  let total = options.total;
  let done = 0;
  let detail: string | undefined;
  let lastDrawAt = Number.NEGATIVE_INFINITY;
  let lastPlainStep = -1;
  let finished = false;

  const render = (): string => {
    const elapsedSeconds = Math.max(0.001, (now() - startedAt) / 1000);
    const perSecond = done / elapsedSeconds;
    const rate = `${formatAmount(perSecond, options.unit)}/s`;
    const parts = [options.label];
    if (total !== undefined && total > 0) {
      const fraction = Math.min(1, done / total);
      const filled = Math.round(fraction * BAR_WIDTH);
      if (interactive) parts.push(`[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`);
      parts.push(
        `${Math.floor(fraction * 100)}%`,
        `${formatAmount(done, options.unit)} of ${formatAmount(total, options.unit)}`,
      );
    } else {
      parts.push(formatAmount(done, options.unit));
    }
    parts.push(rate);
    if (total !== undefined && done > 0 && done < total && perSecond > 0) {
      parts.push(`ETA ${formatDuration((total - done) / perSecond)}`);
    }
    if (detail !== undefined && detail.length > 0) parts.push(detail);
    return parts.join(' ');
  };

  const draw = (): void => {
    const line = render();
    const width = stream.columns ?? 0;
    stream.write(`\r${width > 0 ? line.slice(0, width - 1) : line}\u001b[K`);
  };

  return {
    update(value, newTotal, newDetail) {
      if (finished) return;
      done = value;
      if (newTotal !== undefined) total = newTotal;
      if (newDetail !== undefined) detail = newDetail;
      const at = now();
      if (interactive) {
        if (at - lastDrawAt >= redrawIntervalMs) {
          lastDrawAt = at;
          draw();
        }
        return;
      }
      const step = total !== undefined && total > 0 ? Math.floor((Math.min(1, done / total) * 100) / 10) : -1;
      if (step > lastPlainStep || at - lastDrawAt >= plainIntervalMs) {
        lastPlainStep = Math.max(lastPlainStep, step);
        lastDrawAt = at;
        stream.write(`${render()}\n`);
      }
    },
    finish(message) {
      if (finished) return;
      finished = true;
      const line = message === undefined ? render() : `${render()} — ${message}`;
      stream.write(interactive ? `\r${line}\u001b[K\n` : `${line}\n`);
    },
  };
};
