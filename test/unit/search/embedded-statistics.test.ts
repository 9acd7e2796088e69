/**
 * When the embedded engine refreshes SQLite's planner statistics: once the number of indexed jobs has
 * doubled or halved since the last refresh, never for indexes that were and are below the minimum.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATISTICS_MIN_JOBS, StatisticsSchedule } from '../../../local/search/embedded/statistics';

const MIN = STATISTICS_MIN_JOBS;

describe('planner statistics schedule', () => {
  it('is not due for a fresh schedule, whatever the job count', () => {
    for (const jobs of [0, 1, MIN - 1, MIN, 10 * MIN]) expect(new StatisticsSchedule(jobs).due).toBe(false);
  });

  it('is due at once when the statistics on file were taken at half or double the job count, or never', () => {
    expect(new StatisticsSchedule(2 * MIN, MIN).due).toBe(true);
    expect(new StatisticsSchedule(2 * MIN - 1, MIN).due).toBe(false);
    expect(new StatisticsSchedule(MIN, 2 * MIN).due).toBe(true);
    expect(new StatisticsSchedule(MIN + 1, 2 * MIN).due).toBe(false);
    expect(new StatisticsSchedule(MIN, 0).due).toBe(true);
    expect(new StatisticsSchedule(MIN - 1, 0).due).toBe(false);
  });

  it('is not due while the index stays below the minimum, even when it grows from empty', () => {
    const schedule = new StatisticsSchedule(0);
    schedule.changed(MIN - 1);
    expect(schedule.due).toBe(false);
    schedule.changed(1);
    expect(schedule.jobs).toBe(MIN);
    expect(schedule.due).toBe(true);
  });

  it('is not due when a small index halves', () => {
    const schedule = new StatisticsSchedule(MIN - 1);
    schedule.changed(-(MIN - 1));
    expect(schedule.jobs).toBe(0);
    expect(schedule.due).toBe(false);
  });

  it('is due once the job count doubles from the minimum or more', () => {
    const schedule = new StatisticsSchedule(3 * MIN);
    schedule.changed(3 * MIN - 1);
    expect(schedule.due).toBe(false);
    schedule.changed(1);
    expect(schedule.due).toBe(true);
    schedule.changed(5 * MIN);
    expect(schedule.due).toBe(true);
  });

  it('is due once the job count halves, even when it ends below the minimum', () => {
    const large = new StatisticsSchedule(4 * MIN);
    large.changed(-(2 * MIN - 1));
    expect(large.due).toBe(false);
    large.changed(-1);
    expect(large.due).toBe(true);

    const atMinimum = new StatisticsSchedule(MIN);
    atMinimum.changed(-(MIN / 2));
    expect(atMinimum.jobs).toBe(MIN / 2);
    expect(atMinimum.due).toBe(true);
  });

  it('is not due after growth or shrinkage of less than two times', () => {
    const schedule = new StatisticsSchedule(5 * MIN);
    for (const delta of [5 * MIN - 1, -(5 * MIN - 1), -(2 * MIN), 2 * MIN, 1]) {
      schedule.changed(delta);
      expect(schedule.due).toBe(false);
    }
  });

  it('counts changes cumulatively across writes', () => {
    const schedule = new StatisticsSchedule(MIN);
    for (let write = 0; write < 9; write += 1) schedule.changed(MIN / 10);
    expect(schedule.due).toBe(false);
    schedule.changed(MIN / 10);
    expect(schedule.jobs).toBe(2 * MIN);
    expect(schedule.due).toBe(true);
  });

  it('is no longer due after a refresh, and measures later changes from the refreshed count', () => {
    const schedule = new StatisticsSchedule(MIN);
    schedule.changed(MIN);
    expect(schedule.due).toBe(true);
    schedule.refreshed();
    expect(schedule.due).toBe(false);
    schedule.changed(2 * MIN - 1);
    expect(schedule.due).toBe(false);
    schedule.changed(1);
    expect(schedule.jobs).toBe(4 * MIN);
    expect(schedule.due).toBe(true);
  });

  it('is due once every job is cleared from a large index', () => {
    const schedule = new StatisticsSchedule(4 * MIN);
    schedule.cleared();
    expect(schedule.jobs).toBe(0);
    expect(schedule.due).toBe(true);
  });

  it('after clearing, measures growth from the last refresh', () => {
    const refreshedEmpty = new StatisticsSchedule(4 * MIN);
    refreshedEmpty.cleared();
    refreshedEmpty.refreshed();
    refreshedEmpty.changed(MIN - 1);
    expect(refreshedEmpty.due).toBe(false);
    refreshedEmpty.changed(1);
    expect(refreshedEmpty.due).toBe(true);

    const notRefreshed = new StatisticsSchedule(4 * MIN);
    notRefreshed.cleared();
    notRefreshed.changed(3 * MIN);
    expect(notRefreshed.due).toBe(false);
    notRefreshed.changed(5 * MIN);
    expect(notRefreshed.due).toBe(true);
  });

  it('never counts below zero jobs', () => {
    const schedule = new StatisticsSchedule(10);
    schedule.changed(-50);
    expect(schedule.jobs).toBe(0);
    schedule.changed(5);
    expect(schedule.jobs).toBe(5);
  });

  it('is due exactly when the larger count reaches the minimum and the count doubled or halved, for any history', () => {
    type Step = { kind: 'changed'; delta: number } | { kind: 'cleared' } | { kind: 'refreshed' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.integer({ min: -4 * MIN, max: 4 * MIN }).map((delta) => ({ kind: 'changed', delta }) as const),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'cleared' } as const) },
      { weight: 2, arbitrary: fc.constant({ kind: 'refreshed' } as const) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 * MIN }), fc.array(step, { maxLength: 30 }), (initial, steps) => {
        const schedule = new StatisticsSchedule(initial);
        let jobs = initial;
        let at = initial;
        for (const next of steps) {
          if (next.kind === 'changed') {
            schedule.changed(next.delta);
            jobs = Math.max(0, jobs + next.delta);
          } else if (next.kind === 'cleared') {
            schedule.cleared();
            jobs = 0;
          } else {
            schedule.refreshed();
            at = jobs;
          }
          expect(schedule.jobs).toBe(jobs);
          expect(schedule.due).toBe(Math.max(jobs, at) >= MIN && (jobs >= 2 * at || 2 * jobs <= at));
        }
      }),
    );
  });
});
