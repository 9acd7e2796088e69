/**
 * The bodies of the job writes (docs/contract.md §6a): each refusal names the first offending field, form
 * bodies are coerced, and the rules a schema cannot state (files only in JSON, two decimals, no file twice).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../functions/errors';
import { idempotencyKeyOf } from '../../../functions/handlers/jobs-write';
import {
  hasAtMostTwoDecimals,
  parseCreateJobRequest,
  parseDeliveryRequest,
  parseJobUpdate,
} from '../../../functions/http/job-write-requests';
import type { RequestBody } from '../../../functions/http/request';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'form', fields });

/** The parameter a refusal names. */
const refused = (parse: () => unknown): string | undefined => {
  try {
    parse();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_parameter') return error.context.parameter;
    throw error;
  }
  return undefined;
};

describe('POST /jobs bodies', () => {
  it('fills the defaults of a minimal body', () => {
    expect(parseCreateJobRequest(json({ name: 'Spring' }))).toEqual({
      name: 'Spring',
      description: '',
      invoiceReference: '',
      tags: [],
      accountId: undefined,
      accountName: undefined,
      files: [],
    });
  });

  it('keeps the files in order with their defaults', () => {
    const request = parseCreateJobRequest(
      json({
        name: 'x',
        files: [{ fileName: 'b.jpg', tags: ['t'], remarkToProcessor: 'Crop' }, { fileName: 'a.jpg' }],
      }),
    );
    expect(request.files).toEqual([
      { fileName: 'b.jpg', tags: ['t'], remarkToProcessor: 'Crop' },
      { fileName: 'a.jpg', tags: [], remarkToProcessor: '' },
    ]);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(201) }, 'name'],
    [{ name: 'x', description: 'd'.repeat(4_001) }, 'description'],
    [{ name: 'x', tags: [''] }, 'tags[0]'],
    [{ name: 'x', accountId: 0 }, 'accountId'],
    [{ name: 'x', files: [{ fileName: 'a' }, {}] }, 'files[1].fileName'],
    [{ name: 'x', files: [{ fileName: 'a', remarkToProcessor: 'r'.repeat(1_001) }] }, 'files[0].remarkToProcessor'],
  ])('refuses %j naming %s', (body, parameter) => {
    expect(refused(() => parseCreateJobRequest(json(body)))).toBe(parameter);
  });

  it('coerces a form and refuses files in it', () => {
    expect(parseCreateJobRequest(form({ name: 'x', tags: ['a', 'b'], accountId: '77' }))).toMatchObject({
      tags: ['a', 'b'],
      accountId: 77,
    });
    expect(refused(() => parseCreateJobRequest(form({ name: 'x', files: 'a.jpg' })))).toBe('files');
  });
});

describe('PATCH /jobs/{id} bodies', () => {
  it('keeps only the fields sent', () => {
    expect(parseJobUpdate(json({ status: 'CJ_REQUEST_OFFER', other: 1 }))).toEqual({ status: 'CJ_REQUEST_OFFER' });
    expect(parseJobUpdate(json({}))).toEqual({});
  });

  it('refuses an unknown status, a negative cost and a cost with more than two decimals', () => {
    expect(refused(() => parseJobUpdate(json({ status: 'DONE' })))).toBe('status');
    expect(refused(() => parseJobUpdate(json({ realCost: -1 })))).toBe('realCost');
    expect(refused(() => parseJobUpdate(json({ realCost: 1.005 })))).toBe('realCost');
    expect(parseJobUpdate(form({ realCost: '12.34' }))).toEqual({ realCost: 12.34 });
  });

  it.each([
    [0, true],
    [12.5, true],
    [0.1 + 0.2, true],
    [19.99, true],
    [1.005, false],
    [0.001, false],
  ])('judges %d to have at most two decimals: %s', (value, expected) => {
    expect(hasAtMostTwoDecimals(value)).toBe(expected);
  });
});

describe('delivery bodies', () => {
  it('delivers every file not accepted when no ids are given', () => {
    expect(parseDeliveryRequest(json({}))).toEqual({ fileIds: undefined });
  });

  it('takes fileIds or repeated fileId in a form, and refuses a file twice', () => {
    expect(parseDeliveryRequest(form({ fileId: ['1', '2'] }))).toEqual({ fileIds: [1, 2] });
    expect(parseDeliveryRequest(form({ fileIds: '3' }))).toEqual({ fileIds: [3] });
    expect(refused(() => parseDeliveryRequest(json({ fileIds: [1, 2, 1] })))).toBe('fileIds[2]');
    expect(refused(() => parseDeliveryRequest(json({ fileIds: [] })))).toBe('fileIds');
  });
});

describe('Idempotency-Key', () => {
  it('takes 1 to 255 visible ASCII characters', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('order-17')).toBe('order-17');
    expect(idempotencyKeyOf('k'.repeat(255))).toBe('k'.repeat(255));
  });

  it.each(['', 'has space', 'k'.repeat(256), 'café', 'tab\there'])('refuses %j naming the header', (key) => {
    expect(refused(() => idempotencyKeyOf(key))).toBe('Idempotency-Key');
  });
});
