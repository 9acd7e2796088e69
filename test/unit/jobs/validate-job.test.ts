import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobValidationError, parseIsoDatetime, validateJob } from '../../../local/operations/validate-job';
import { unreviewedFile } from '../../../functions/jobs/model/model';
import { makeFile, makeJob } from '../../support/jobs';

const problemWith = (value: unknown): JobValidationError => {
  try {
    validateJob(value);
  } catch (error) {
    if (error instanceof JobValidationError) return error;
    throw error;
  }
  throw new Error('the value was accepted');
};

describe('job validation for import', () => {
  it('accepts a complete job and returns it unchanged', () => {
    const job = makeJob({ files: [makeFile({ tags: ['front'] })], reviewedDate: '2024-02-01T08:00:00.000Z' });
    expect(validateJob(structuredClone(job))).toEqual(job);
  });

  it('fills optional fields with empty text, empty lists, false and null', () => {
    const job = validateJob({
      id: 5,
      accountId: 7,
      status: 'CJ_NEW',
      guid: '3F2504E0-4F89-41D3-9A0C-0305E82C3301',
      name: 'Minimal',
      realCost: 0,
      createdDate: '2024-01-01',
      files: [{ id: 9, fileName: 'a.jpg' }],
    });

    expect(job).toEqual({
      id: 5,
      accountId: 7,
      accountName: '',
      status: 'CJ_NEW',
      guid: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      name: 'Minimal',
      description: '',
      invoiceReference: '',
      tags: [],
      realCost: 0,
      createdDate: '2024-01-01T00:00:00.000Z',
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
      files: [unreviewedFile({ id: 9, fileName: 'a.jpg' })],
    });
  });

  it('drops fields the model does not know', () => {
    const job = validateJob({ ...makeJob(), fileCount: 1, internalNote: 'x' });
    expect(job).not.toHaveProperty('internalNote');
    expect(job).not.toHaveProperty('fileCount');
  });

  it('normalises datetimes with offsets and long fractions to UTC milliseconds', () => {
    const job = validateJob(
      makeJob({ createdDate: '2016-01-14T14:57:33.8931021+01:00', acceptedDate: '2016-05-06T15:22:02Z' }),
    );
    expect(job.createdDate).toBe('2016-01-14T13:57:33.893Z');
    expect(job.acceptedDate).toBe('2016-05-06T15:22:02.000Z');
  });

  it.each([
    ['a value that is not an object', 'a string', 'job'],
    ['a missing id', { ...makeJob(), id: undefined }, 'id'],
    ['a fractional id', { ...makeJob(), id: 1.5 }, 'id'],
    ['an unknown status', { ...makeJob(), status: 'CJ_DONE' }, 'status'],
    ['a malformed GUID', { ...makeJob(), guid: '1234' }, 'guid'],
    ['a name that is not text', { ...makeJob(), name: 42 }, 'name'],
    ['a cost that is not a number', { ...makeJob(), realCost: '10' }, 'realCost'],
    ['a datetime without a zone', { ...makeJob(), createdDate: '2016-01-14T14:57:33' }, 'createdDate'],
    ['an impossible date', { ...makeJob(), deliveredDate: '2016-02-30T00:00:00Z' }, 'deliveredDate'],
    ['tags that are not a list', { ...makeJob(), tags: 'urgent' }, 'tags'],
    ['a tag that is not text', { ...makeJob(), tags: ['ok', 3] }, 'tags[1]'],
    ['files that are not a list', { ...makeJob(), files: {} }, 'files'],
    [
      'a file without a name',
      { ...makeJob(), files: [makeFile(), { ...makeFile(), fileName: '' }] },
      'files[1].fileName',
    ],
    [
      'a file flag that is not boolean',
      { ...makeJob(), files: [{ ...makeFile(), isRejected: 'yes' }] },
      'files[0].isRejected',
    ],
    [
      'a position outside the image',
      {
        ...makeJob(),
        files: [
          {
            ...makeFile(),
            reviews: {
              customRejection: null,
              rejects: [{ reason: 'Crop', positions: [{ xPercent: 1.2, yPercent: 0 }] }],
              reviewDate: '2024-01-01T00:00:00Z',
            },
          },
        ],
      },
      'files[0].reviews.rejects[0].positions[0].xPercent',
    ],
    ['a file id used twice', { ...makeJob(), files: [makeFile({ id: 4 }), makeFile({ id: 4 })] }, 'files[1].id'],
    ['a fileCount that disagrees with the files', { ...makeJob(), fileCount: 3 }, 'fileCount'],
  ])('refuses %s, naming the field', (_, value, field) => {
    const problem = problemWith(value);
    expect(problem.field).toBe(field);
    expect(problem.message.startsWith(`${field} `)).toBe(true);
  });

  it('names the first offending field in the order of the model', () => {
    expect(problemWith({ ...makeJob(), id: 'x', status: 'nope' }).field).toBe('id');
  });
});

describe('ISO 8601 datetime parsing', () => {
  it('reads a date alone as midnight UTC', () => {
    expect(parseIsoDatetime('2016-01-14')).toBe(Date.UTC(2016, 0, 14));
  });

  it('accepts 29 February only in leap years', () => {
    expect(parseIsoDatetime('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoDatetime('2023-02-29T00:00:00Z')).toBeUndefined();
    expect(parseIsoDatetime('1900-02-29T00:00:00Z')).toBeUndefined();
    expect(parseIsoDatetime('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
  });

  it.each([
    '2016-13-01T00:00:00Z',
    '2016-01-01T24:00:00Z',
    '2016-01-01T10:60:00Z',
    '2016-01-01T10:00:00+25:00',
    '16-01-01',
    '',
  ])('refuses %j', (text) => {
    expect(parseIsoDatetime(text)).toBeUndefined();
  });

  it('reads any instant written with any offset as that instant', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (date, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const absolute = Math.abs(offsetMinutes);
          const zone = `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
          expect(parseIsoDatetime(`${local}${zone}`)).toBe(date.getTime());
        },
      ),
    );
  });
});
