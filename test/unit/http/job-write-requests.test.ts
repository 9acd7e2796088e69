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
import { expectApiError } from './expect-api-error';

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

  it('reads every field of a form, and says why a form may not name files', async () => {
    expect(
      parseCreateJobRequest(
        form({ name: 'Spring', description: 'd', invoiceReference: 'INV-1', tags: 'one', accountName: 'Acme' }),
      ),
    ).toEqual({
      name: 'Spring',
      description: 'd',
      invoiceReference: 'INV-1',
      tags: ['one'],
      accountId: undefined,
      accountName: 'Acme',
      files: [],
    });
    const error = await expectApiError(
      () => parseCreateJobRequest(form({ name: 'x', files: '' })),
      'invalid_parameter',
      { parameter: 'files' },
    );
    expect(error.message).toBe('files can only be sent in a JSON body.');
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', tags: ['a', ''] }, 'tags'],
    [{ name: 'x', accountId: 'seven' }, 'accountId'],
    [{ name: 'x', accountId: '0' }, 'accountId'],
  ])('refuses the form %j naming its top-level field %s', (body, parameter) => {
    expect(refused(() => parseCreateJobRequest(form(body)))).toBe(parameter);
  });

  it('names a bad item of a JSON body by its path', () => {
    expect(refused(() => parseCreateJobRequest(json({ name: 'x', tags: ['a', ''] })))).toBe('tags[1]');
  });
});

describe('the size and SHA-256 a new file declares', () => {
  const SHA = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';
  const withFile = (file: Record<string, unknown>) =>
    json({ name: 'Spring', files: [{ fileName: 'a.jpg' }, { fileName: 'b.jpg', ...file }] });

  it('keeps a size of 1 byte to 200 MB and a base64 SHA-256 of 32 bytes, and only when declared', () => {
    expect(parseCreateJobRequest(withFile({ size: 200_000_000, sha256: SHA })).files).toEqual([
      { fileName: 'a.jpg', tags: [], remarkToProcessor: '' },
      { fileName: 'b.jpg', tags: [], remarkToProcessor: '', size: 200_000_000, sha256: SHA },
    ]);
    expect(parseCreateJobRequest(withFile({ size: 1 })).files[1]).toEqual({
      fileName: 'b.jpg',
      tags: [],
      remarkToProcessor: '',
      size: 1,
    });
  });

  it.each([
    ['no byte', { size: 0 }, 'files[1].size'],
    ['more than 200 MB', { size: 200_000_001 }, 'files[1].size'],
    ['a fraction', { size: 1.5 }, 'files[1].size'],
    ['a string', { size: '12' }, 'files[1].size'],
    ['hex', { sha256: 'ab'.repeat(32) }, 'files[1].sha256'],
    ['31 bytes', { sha256: 'A'.repeat(40) + 'AA==' }, 'files[1].sha256'],
    ['33 bytes', { sha256: 'A'.repeat(44) + 'AA==' }, 'files[1].sha256'],
    ['unpadded', { sha256: SHA.slice(0, -1) }, 'files[1].sha256'],
    ['URL-safe letters', { sha256: SHA.replace('+', '-') }, 'files[1].sha256'],
    ['non-canonical trailing bits', { sha256: SHA.slice(0, 42) + 'h=' }, 'files[1].sha256'],
  ])('refuses %s, naming the field by its path', (_name, file, parameter) => {
    expect(refused(() => parseCreateJobRequest(withFile(file)))).toBe(parameter);
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

  it('reads every field of a form and names a bad one by its top-level field, a JSON one by its path', async () => {
    expect(
      parseJobUpdate(
        form({
          name: 'n',
          description: 'd',
          invoiceReference: 'i',
          tags: ['a', 'b'],
          status: 'CJ_REQUEST_OFFER',
          realCost: '7',
          accountName: 'Acme',
          other: 'x',
        }),
      ),
    ).toEqual({
      name: 'n',
      description: 'd',
      invoiceReference: 'i',
      tags: ['a', 'b'],
      status: 'CJ_REQUEST_OFFER',
      realCost: 7,
      accountName: 'Acme',
    });
    expect(refused(() => parseJobUpdate(form({ tags: ['a', ''] })))).toBe('tags');
    expect(refused(() => parseJobUpdate(json({ tags: ['a', ''] })))).toBe('tags[1]');
    expect(refused(() => parseJobUpdate(form({ realCost: 'ten' })))).toBe('realCost');
    const error = await expectApiError(() => parseJobUpdate(form({ realCost: '0.125' })), 'invalid_parameter', {
      parameter: 'realCost',
    });
    expect(error.message).toBe('realCost may have at most two decimals.');
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

  it('reads the ids of a form as integers, naming a bad one by its top-level field', () => {
    expect(parseDeliveryRequest(form({ fileIds: ['4', '5'] }))).toEqual({ fileIds: [4, 5] });
    expect(parseDeliveryRequest(form({ fileId: '6' }))).toEqual({ fileIds: [6] });
    expect(parseDeliveryRequest(form({}))).toEqual({ fileIds: undefined });
    expect(refused(() => parseDeliveryRequest(form({ fileIds: ['1', 'x'] })))).toBe('fileIds');
    expect(refused(() => parseDeliveryRequest(form({ fileId: ['1', '0'] })))).toBe('fileId');
    expect(refused(() => parseDeliveryRequest(json({ fileIds: [1, 0] })))).toBe('fileIds[1]');
  });

  it('refuses a form naming both fileIds and fileId, and says so', async () => {
    const error = await expectApiError(
      () => parseDeliveryRequest(form({ fileIds: '1', fileId: '2' })),
      'invalid_parameter',
      { parameter: 'fileId' },
    );
    expect(error.message).toBe('Send the files as fileIds or as fileId, not both.');
  });

  it('names a file listed twice by the form field that listed it, or by its index in JSON, and says which', async () => {
    for (const [body, parameter] of [
      [form({ fileIds: ['3', '4', '3'] }), 'fileIds'],
      [form({ fileId: ['3', '4', '3'] }), 'fileId'],
      [json({ fileIds: [3, 4, 3] }), 'fileIds[2]'],
    ] as const) {
      const error = await expectApiError(() => parseDeliveryRequest(body), 'invalid_parameter', { parameter });
      expect(error.message).toBe('File 3 is listed more than once.');
    }
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
