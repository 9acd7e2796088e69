/**
 * The progress bar the import and reindex commands draw on stderr.
 */
import { describe, expect, it } from 'vitest';
import { createProgressBar, formatDuration, type ProgressStream } from '../../local/operations/progress';

const capture = (isTTY: boolean): ProgressStream & { output: string } => {
  const stream = {
    isTTY,
    output: '',
    write(text: string) {
      stream.output += text;
      return true;
    },
  };
  return stream;
};

describe('progress bar', () => {
  it('redraws one line in place on a terminal and ends it when finished', () => {
    const stream = capture(true);
    let now = 0;
    const bar = createProgressBar({
      label: 'Importing',
      unit: 'jobs',
      total: 200,
      stream,
      interactive: true,
      now: () => now,
    });

    for (let done = 0; done <= 200; done += 10) {
      now += 1_000;
      bar.update(done);
    }
    bar.finish('done');

    expect(stream.output.split('\n')).toHaveLength(2);
    expect(stream.output.startsWith('\r')).toBe(true);
    expect(stream.output).toContain('[########################] 100% 200 jobs of 200 jobs');
    expect(stream.output.trimEnd().endsWith('done\u001b[K')).toBe(true);
  });

  it('redraws no more often than its interval on a terminal', () => {
    const stream = capture(true);
    const bar = createProgressBar({
      label: 'Reindexing',
      stream,
      interactive: true,
      redrawIntervalMs: 100,
      now: () => 5,
    });

    for (let done = 1; done <= 50; done++) bar.update(done);

    expect(stream.output.split('\r').filter(Boolean)).toHaveLength(1);
  });

  it('prints plain lines every ten percent when not on a terminal', () => {
    const stream = capture(false);
    const bar = createProgressBar({ label: 'Importing', total: 1_000, stream, interactive: false, now: () => 1 });

    for (let done = 0; done <= 1_000; done++) bar.update(done);
    bar.finish();

    const lines = stream.output.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(stream.output).not.toContain('\r');
    expect(stream.output).not.toContain('\u001b');
    expect(lines.at(-2)).toContain('100%');
  });

  it('prints a plain line now and then when the total is unknown', () => {
    const stream = capture(false);
    let now = 0;
    const bar = createProgressBar({
      label: 'Reindexing',
      stream,
      interactive: false,
      plainIntervalMs: 5_000,
      now: () => now,
    });

    for (let done = 1; done <= 100; done++) {
      now += 500;
      bar.update(done, undefined, `${done} indexed`);
    }
    bar.finish();

    const lines = stream.output.trimEnd().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toContain('100 indexed');
  });

  it('does not redraw in place when CI=true, even on a terminal', () => {
    const previous = process.env.CI;
    process.env.CI = 'true';
    try {
      const stream = capture(true);
      const bar = createProgressBar({ label: 'Importing', total: 10, stream });
      bar.update(5);
      bar.finish();
      expect(stream.output).not.toContain('\r');
    } finally {
      if (previous === undefined) delete process.env.CI;
      else process.env.CI = previous;
    }
  });

  it('shows the rate so far and the time left at that rate, in plain lines too', () => {
    const stream = capture(false);
    let now = 0;
    const bar = createProgressBar({
      label: 'Importing',
      unit: 'jobs',
      total: 10_000,
      stream,
      interactive: false,
      now: () => now,
    });

    now = 10_000;
    bar.update(2_500);
    now = 40_000;
    bar.update(10_000);

    const lines = stream.output.trimEnd().split('\n');
    expect(lines[0]).toContain('250 jobs/s ETA 30s');
    expect(lines[1]).toContain('250 jobs/s');
    expect(lines[1]).not.toContain('ETA');
  });

  it('prints durations in seconds, minutes or hours', () => {
    expect([formatDuration(4.4), formatDuration(725), formatDuration(12_000)]).toEqual(['4s', '12m 05s', '3h 20m']);
  });

  it('prints byte counts in binary units', () => {
    const stream = capture(false);
    const bar = createProgressBar({
      label: 'Reading',
      unit: 'bytes',
      total: 3 * 1024 * 1024,
      stream,
      interactive: false,
    });
    bar.update(1536 * 1024);
    expect(stream.output).toContain('1.5 MiB of 3.0 MiB');
  });
});
