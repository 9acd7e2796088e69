import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_STATUS } from '../../../functions/http/errors';
import type { RequestBody } from '../../../functions/http/request';
import { parseRejectRequest, REJECT_LIMITS } from '../../../functions/http/reject-request';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'form', fields });

/** The `parameter` of the invalid_parameter error a body is refused with. */
const refusedParameter = (body: RequestBody): string | undefined => {
  try {
    parseRejectRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_parameter');
    expect(ERROR_STATUS[(error as ApiError).code]).toBe(400);
    return (error as ApiError).context.parameter;
  }
  return undefined;
};

const reject = (reason = 'Cropping', positions: unknown[] = []) => ({ reason, positions });
const file = (fileId: unknown, extra: Record<string, unknown> = { customRejection: 'Too dark' }) => ({
  fileId,
  ...extra,
});

describe('reject request, JSON body', () => {
  it('reads the contract example', () => {
    const body = json({
      files: [
        {
          fileId: 3325324,
          customRejection: 'Shadow under the shoe is missing',
          rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        },
      ],
    });
    expect(parseRejectRequest(body)).toEqual({
      files: [
        {
          fileId: 3325324,
          customRejection: 'Shadow under the shoe is missing',
          rejects: [{ reason: 'Cropping', positions: [{ xPercent: 0.61, yPercent: 0.44 }] }],
        },
      ],
    });
  });

  it('keeps files and reasons in request order and ignores unknown fields', () => {
    const body = json({
      files: [
        { fileId: 2, rejects: [reject('B'), reject('A')], color: 'red' },
        { fileId: 1, customRejection: 'x' },
      ],
      extra: true,
    });
    expect(parseRejectRequest(body)).toEqual({
      files: [
        { fileId: 2, customRejection: null, rejects: [reject('B'), reject('A')] },
        { fileId: 1, customRejection: 'x', rejects: [] },
      ],
    });
  });

  it('treats missing, null and empty positions as none, and accepts coordinates 0 and 1', () => {
    const parsed = parseRejectRequest(
      json({
        files: [
          {
            fileId: 1,
            rejects: [
              { reason: 'a' },
              { reason: 'b', positions: null },
              { reason: 'c', positions: [{ xPercent: 0, yPercent: 1 }] },
            ],
          },
        ],
      }),
    );
    expect(parsed.files[0]?.rejects.map((r) => r.positions)).toEqual([[], [], [{ xPercent: 0, yPercent: 1 }]]);
  });

  it('treats a blank customRejection as none', () => {
    expect(
      parseRejectRequest(json({ files: [file(1, { customRejection: '  ', rejects: [reject()] })] })).files[0],
    ).toEqual({ fileId: 1, customRejection: null, rejects: [reject()] });
  });

  it.each([
    ['files is missing', {}, 'files'],
    ['files is not a list', { files: { fileId: 1 } }, 'files'],
    ['files is empty', { files: [] }, 'files'],
    ['there are 51 files', { files: Array.from({ length: 51 }, (_, i) => file(i + 1)) }, 'files'],
    ['a file entry is not an object', { files: [file(1), 7] }, 'files[1]'],
    ['fileId is missing', { files: [{ customRejection: 'x' }] }, 'files[0].fileId'],
    ['fileId is a string', { files: [file('5')] }, 'files[0].fileId'],
    ['fileId is zero', { files: [file(0)] }, 'files[0].fileId'],
    ['fileId is negative', { files: [file(-3)] }, 'files[0].fileId'],
    ['fileId is a fraction', { files: [file(1.5)] }, 'files[0].fileId'],
    ['fileId is beyond safe integers', { files: [file(2 ** 53)] }, 'files[0].fileId'],
    ['a file is listed twice', { files: [file(1), file(2), file(1)] }, 'files[2].fileId'],
    ['a file has neither customRejection nor rejects', { files: [file(1), file(2, {})] }, 'files[1]'],
    ['a file has a blank customRejection and no rejects', { files: [file(1, { customRejection: ' ' })] }, 'files[0]'],
    ['a file has an empty rejects list only', { files: [file(1, { rejects: [] })] }, 'files[0]'],
    ['customRejection is a number', { files: [file(1, { customRejection: 5 })] }, 'files[0].customRejection'],
    [
      'customRejection has 1001 characters',
      { files: [file(1, { customRejection: 'x'.repeat(1001) })] },
      'files[0].customRejection',
    ],
    ['rejects is not a list', { files: [file(1, { rejects: reject() })] }, 'files[0].rejects'],
    [
      'there are 21 rejects',
      { files: [file(1, { rejects: Array.from({ length: 21 }, () => reject()) })] },
      'files[0].rejects',
    ],
    ['a reject is not an object', { files: [file(1, { rejects: [reject(), 'Cropping'] })] }, 'files[0].rejects[1]'],
    ['a reason is missing', { files: [file(1, { rejects: [{ positions: [] }] })] }, 'files[0].rejects[0].reason'],
    ['a reason is empty', { files: [file(1, { rejects: [reject('')] })] }, 'files[0].rejects[0].reason'],
    ['a reason is blank', { files: [file(1, { rejects: [reject('   ')] })] }, 'files[0].rejects[0].reason'],
    [
      'a reason has 101 characters',
      { files: [file(1, { rejects: [reject('r'.repeat(101))] })] },
      'files[0].rejects[0].reason',
    ],
    [
      'positions is not a list',
      { files: [file(1, { rejects: [{ reason: 'a', positions: { xPercent: 0, yPercent: 0 } }] })] },
      'files[0].rejects[0].positions',
    ],
    [
      'there are 51 positions',
      {
        files: [
          file(1, {
            rejects: [
              reject(
                'a',
                Array.from({ length: 51 }, () => ({ xPercent: 0, yPercent: 0 })),
              ),
            ],
          }),
        ],
      },
      'files[0].rejects[0].positions',
    ],
    [
      'a position is not an object',
      { files: [file(1, { rejects: [reject('a', [[0.1, 0.2]])] })] },
      'files[0].rejects[0].positions[0]',
    ],
    [
      'xPercent is above 1',
      {
        files: [
          file(1, {
            rejects: [
              reject('a'),
              reject('b', [
                { xPercent: 0.5, yPercent: 0.5 },
                { xPercent: 1.01, yPercent: 0 },
              ]),
            ],
          }),
        ],
      },
      'files[0].rejects[1].positions[1].xPercent',
    ],
    [
      'yPercent is negative',
      { files: [file(1, { rejects: [reject('a', [{ xPercent: 0, yPercent: -0.1 }])] })] },
      'files[0].rejects[0].positions[0].yPercent',
    ],
    [
      'yPercent is missing',
      { files: [file(1, { rejects: [reject('a', [{ xPercent: 0 }])] })] },
      'files[0].rejects[0].positions[0].yPercent',
    ],
    [
      'xPercent is a numeric string',
      { files: [file(1, { rejects: [reject('a', [{ xPercent: '0.5', yPercent: 0 }])] })] },
      'files[0].rejects[0].positions[0].xPercent',
    ],
  ])('answers invalid_parameter when %s', (_case, fields, parameter) => {
    expect(refusedParameter(json(fields))).toBe(parameter);
  });

  it('accepts every limit exactly at its bound', () => {
    const fullReject = reject(
      'r'.repeat(REJECT_LIMITS.maxReasonLength),
      Array.from({ length: REJECT_LIMITS.maxPositions }, () => ({ xPercent: 1, yPercent: 0 })),
    );
    const files = Array.from({ length: REJECT_LIMITS.maxFiles }, (_, i) =>
      file(i + 1, {
        customRejection: 'c'.repeat(REJECT_LIMITS.maxCustomRejectionLength),
        rejects: Array.from({ length: REJECT_LIMITS.maxRejects }, () => fullReject),
      }),
    );
    expect(parseRejectRequest(json({ files })).files).toHaveLength(50);
  });

  it('counts characters, not UTF-16 units, against the length limits', () => {
    const emoji = '📷'.repeat(REJECT_LIMITS.maxReasonLength);
    expect(
      parseRejectRequest(json({ files: [file(1, { rejects: [reject(emoji)] })] })).files[0]?.rejects[0]?.reason,
    ).toBe(emoji);
  });

  it('names the first offending parameter in request order', () => {
    expect(refusedParameter(json({ files: [file(1, { customRejection: 5 }), file(0)] }))).toBe(
      'files[0].customRejection',
    );
  });
});

describe('reject request, form body', () => {
  it('gives every listed file the same reasons and custom rejection, without positions', () => {
    expect(
      parseRejectRequest(form({ fileId: ['1', '2'], reason: ['Cropping', 'Colour'], customRejection: 'Too dark' })),
    ).toEqual({
      files: [
        { fileId: 1, customRejection: 'Too dark', rejects: [reject('Cropping'), reject('Colour')] },
        { fileId: 2, customRejection: 'Too dark', rejects: [reject('Cropping'), reject('Colour')] },
      ],
    });
  });

  it('reads one occurrence of a key as a one-element list', () => {
    expect(parseRejectRequest(form({ fileId: '7', reason: 'Cropping' }))).toEqual({
      files: [{ fileId: 7, customRejection: null, rejects: [reject('Cropping')] }],
    });
  });

  it('accepts a custom rejection alone', () => {
    expect(parseRejectRequest(form({ fileId: '7', customRejection: 'Redo' })).files[0]?.rejects).toEqual([]);
  });

  it.each([
    ['fileId is missing', { reason: 'a' }, 'fileId'],
    ['fileId is not a number', { fileId: 'abc', reason: 'a' }, 'fileId'],
    ['fileId is zero', { fileId: '0', reason: 'a' }, 'fileId'],
    ['fileId is negative', { fileId: '-1', reason: 'a' }, 'fileId'],
    ['fileId is a fraction', { fileId: '1.5', reason: 'a' }, 'fileId'],
    ['fileId is empty', { fileId: '', reason: 'a' }, 'fileId'],
    ['a file is listed twice', { fileId: ['3', '4', '3'], reason: 'a' }, 'fileId'],
    ['51 files are listed', { fileId: Array.from({ length: 51 }, (_, i) => String(i + 1)), reason: 'a' }, 'fileId'],
    ['no reason and no custom rejection are given', { fileId: '1' }, 'reason'],
    ['the custom rejection is blank and no reason is given', { fileId: '1', customRejection: ' ' }, 'reason'],
    ['21 reasons are given', { fileId: '1', reason: Array.from({ length: 21 }, () => 'a') }, 'reason'],
    ['a reason is empty', { fileId: '1', reason: ['a', ''] }, 'reason'],
    ['a reason has 101 characters', { fileId: '1', reason: 'r'.repeat(101) }, 'reason'],
    ['customRejection is given twice', { fileId: '1', customRejection: ['a', 'b'] }, 'customRejection'],
    ['customRejection has 1001 characters', { fileId: '1', customRejection: 'c'.repeat(1001) }, 'customRejection'],
  ])('answers invalid_parameter when %s', (_case, fields, parameter) => {
    expect(refusedParameter(form(fields))).toBe(parameter);
  });
});

describe('reject request, any input', () => {
  it('either reads a request within every limit or refuses it with invalid_parameter', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record({
            encoding: fc.constant('json' as const),
            fields: fc.dictionary(fc.constantFrom('files', 'x'), fc.jsonValue()),
          }),
          fc.record({
            encoding: fc.constant('form' as const),
            fields: fc.dictionary(
              fc.constantFrom('fileId', 'reason', 'customRejection', 'x'),
              fc.oneof(fc.string(), fc.array(fc.string())),
            ),
          }),
        ),
        (body) => {
          let parsed: ReturnType<typeof parseRejectRequest>;
          try {
            parsed = parseRejectRequest(body);
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
            expect((error as ApiError).code).toBe('invalid_parameter');
            expect(typeof (error as ApiError).context.parameter).toBe('string');
            return;
          }
          expect(parsed.files.length).toBeGreaterThanOrEqual(1);
          expect(parsed.files.length).toBeLessThanOrEqual(REJECT_LIMITS.maxFiles);
          expect(new Set(parsed.files.map((f) => f.fileId)).size).toBe(parsed.files.length);
          for (const f of parsed.files) {
            expect(Number.isSafeInteger(f.fileId) && f.fileId > 0).toBe(true);
            expect(f.customRejection !== null || f.rejects.length > 0).toBe(true);
            expect(f.rejects.length).toBeLessThanOrEqual(REJECT_LIMITS.maxRejects);
          }
        },
      ),
    );
  });

  it('reads back every valid JSON request it is given', () => {
    const position = fc.record({
      xPercent: fc.double({ min: 0, max: 1, noNaN: true }),
      yPercent: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    const rejectArb = fc.record({
      reason: fc.string({ minLength: 1, maxLength: 100 }).filter((s) => s.trim().length > 0),
      positions: fc.array(position, { maxLength: 5 }),
    });
    const fileArb = fc.record({
      customRejection: fc.string({ minLength: 1, maxLength: 1000 }).filter((s) => s.trim().length > 0),
      rejects: fc.array(rejectArb, { minLength: 1, maxLength: 20 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 40 }), { minLength: 1, maxLength: 50 }),
        fc.array(fileArb, { minLength: 50, maxLength: 50 }),
        (ids, reviews) => {
          const files = ids.map((fileId, index) => ({ fileId, ...reviews[index]! }));
          expect(parseRejectRequest(json({ files })).files).toEqual(files);
        },
      ),
      { numRuns: 30 },
    );
  });
});
