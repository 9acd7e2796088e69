import { describe, expect, it } from 'vitest';
import { JOB_STATUSES } from '../../../functions/jobs/model/model';
import {
  allowedMoves,
  canMove,
  LIFECYCLE_ORDER,
  STATUS_DESCRIPTIONS,
  statusCatalogue,
  TRANSITIONS,
} from '../../../functions/jobs/model/statuses';

describe('status catalogue', () => {
  it('lists every status of the model once, in lifecycle order', () => {
    expect(LIFECYCLE_ORDER).toEqual([
      'CJ_NEW',
      'CJ_REQUEST_OFFER',
      'CJ_ACCEPT',
      'CJ_PREPROCESS',
      'CJ_JOB_PAID',
      'CJ_WORK_PROGRESS',
      'CJ_REVIEWING',
      'CJ_REJECT_READY',
      'CJ_REJECT_ERROR',
      'CJ_FINISHED',
      'CJ_ARCHIVED',
      'ERROR',
    ]);
    expect(statusCatalogue('user').map((entry) => entry.id)).toEqual([...JOB_STATUSES]);
  });

  it('describes every status in a sentence', () => {
    for (const status of JOB_STATUSES) expect(STATUS_DESCRIPTIONS[status]).toMatch(/^[A-Z].{10,}\.$/);
  });

  it("gives an operator the contract's moves", () => {
    expect(allowedMoves('CJ_NEW', 'operator')).toEqual(['CJ_REQUEST_OFFER', 'CJ_ACCEPT', 'CJ_ARCHIVED', 'ERROR']);
    expect(allowedMoves('CJ_REQUEST_OFFER', 'operator')).toEqual(['CJ_NEW', 'CJ_ACCEPT', 'CJ_ARCHIVED', 'ERROR']);
    expect(allowedMoves('CJ_ACCEPT', 'operator')).toEqual(['CJ_PREPROCESS', 'CJ_JOB_PAID', 'CJ_ARCHIVED', 'ERROR']);
    expect(allowedMoves('CJ_PREPROCESS', 'operator')).toEqual(['CJ_JOB_PAID', 'CJ_WORK_PROGRESS', 'ERROR']);
    expect(allowedMoves('CJ_JOB_PAID', 'operator')).toEqual(['CJ_WORK_PROGRESS', 'ERROR']);
    expect(allowedMoves('CJ_WORK_PROGRESS', 'operator')).toEqual(['ERROR']);
    expect(allowedMoves('CJ_REVIEWING', 'operator')).toEqual(['CJ_FINISHED', 'ERROR']);
    expect(allowedMoves('CJ_REJECT_READY', 'operator')).toEqual(['CJ_WORK_PROGRESS', 'CJ_REJECT_ERROR', 'ERROR']);
    expect(allowedMoves('CJ_REJECT_ERROR', 'operator')).toEqual(['CJ_REJECT_READY', 'CJ_WORK_PROGRESS', 'ERROR']);
    expect(allowedMoves('CJ_FINISHED', 'operator')).toEqual(['CJ_ARCHIVED']);
    expect(allowedMoves('ERROR', 'operator')).toEqual(['CJ_NEW', 'CJ_WORK_PROGRESS', 'CJ_ARCHIVED']);
    expect(allowedMoves('CJ_ARCHIVED', 'operator')).toEqual([]);
  });

  it("gives a user only the customer's moves", () => {
    const userMoves = Object.fromEntries(
      JOB_STATUSES.map((status) => [status, allowedMoves(status, 'user')]).filter(([, moves]) => moves!.length > 0),
    );
    expect(userMoves).toEqual({
      CJ_NEW: ['CJ_REQUEST_OFFER', 'CJ_ARCHIVED'],
      CJ_REQUEST_OFFER: ['CJ_ACCEPT', 'CJ_ARCHIVED'],
      CJ_FINISHED: ['CJ_ARCHIVED'],
    });
  });

  it('never lets a status move to itself, and never lets a job leave the archive', () => {
    for (const status of JOB_STATUSES) {
      for (const role of ['user', 'operator'] as const) expect(canMove(status, status, role)).toBe(false);
    }
    expect(TRANSITIONS.CJ_ARCHIVED).toEqual({ operator: [], user: [] });
  });

  it('answers canMove by the table', () => {
    expect(canMove('CJ_NEW', 'CJ_ACCEPT', 'operator')).toBe(true);
    expect(canMove('CJ_NEW', 'CJ_ACCEPT', 'user')).toBe(false);
    expect(canMove('CJ_WORK_PROGRESS', 'CJ_REVIEWING', 'operator')).toBe(false);
  });

  it("shows each role's moves as next in the catalogue, as copies", () => {
    const operator = statusCatalogue('operator');
    expect(operator.find((entry) => entry.id === 'CJ_REVIEWING')).toEqual({
      id: 'CJ_REVIEWING',
      description: STATUS_DESCRIPTIONS.CJ_REVIEWING,
      next: ['CJ_FINISHED', 'ERROR'],
    });
    const user = statusCatalogue('user');
    expect(user.find((entry) => entry.id === 'CJ_REVIEWING')?.next).toEqual([]);
    user[0]!.next.push('ERROR');
    expect(allowedMoves('CJ_NEW', 'user')).toEqual(['CJ_REQUEST_OFFER', 'CJ_ARCHIVED']);
  });
});
