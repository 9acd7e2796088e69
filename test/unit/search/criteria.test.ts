import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal, Role } from '../../../functions/auth/principal';
import { ApiError, ERROR_STATUS } from '../../../functions/http/errors';
import type { RequestBody } from '../../../functions/http/request';
import { JOB_STATUSES } from '../../../functions/jobs/model/model';
import { parseSearchCriteria, type SearchCriteria, toSearchQuery } from '../../../functions/http/search-criteria';
import { SEARCH_FIELDS } from '../../../functions/search/fields';

const json = (fields: Record<string, unknown>): RequestBody => ({ encoding: 'json', fields });
const form = (fields: Record<string, string | string[]>): RequestBody => ({ encoding: 'form', fields });

const user = { role: 'user', accountId: 42 } as const satisfies Pick<Principal, 'role' | 'accountId'>;
const operator = { role: 'operator', accountId: 7 } as const satisfies Pick<Principal, 'role' | 'accountId'>;

/** The parameter an invalid body is refused for, or `undefined` when it is accepted. */
const refusedParameter = (body: RequestBody, role: Role = 'user'): string | undefined => {
  try {
    parseSearchCriteria(body, { role });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.code).toBe('invalid_parameter');
    expect(ERROR_STATUS[apiError.code]).toBe(400);
    return apiError.context.parameter;
  }
};

const ms = (iso: string): number => Date.parse(iso);

describe('parseSearchCriteria', () => {
  describe('defaults', () => {
    it('reads an empty body as a Global search for everything, first page of 20', () => {
      const criteria = parseSearchCriteria(json({}), user);
      expect(criteria.field.id).toBe('Global');
      expect(criteria).toMatchObject({ query: '', page: 0, pageSize: 20, created: {}, delivered: {} });
      expect(criteria.statuses).toBeUndefined();
    });

    it('treats JSON null as an absent parameter, for every parameter', () => {
      const nulls = parseSearchCriteria(
        json({
          field: null,
          query: null,
          page: null,
          pageSize: null,
          statuses: null,
          dateFrom: null,
          dateTo: null,
          deliveredDateFrom: null,
          deliveredDateTo: null,
        }),
        user,
      );
      expect(nulls).toEqual(parseSearchCriteria(json({}), user));
    });

    it('ignores unknown parameters', () => {
      const criteria = parseSearchCriteria(json({ sort: 'name', Query: 42, extra: { nested: [1] } }), user);
      expect(criteria).toEqual(parseSearchCriteria(json({}), user));
    });
  });

  describe('field', () => {
    const allowed = (role: Role) =>
      SEARCH_FIELDS.filter((field) => (role === 'operator' ? !field.isUserOnly : !field.isOperatorOnly));
    const refused = (role: Role) =>
      SEARCH_FIELDS.filter((field) => (role === 'operator' ? field.isUserOnly : field.isOperatorOnly));

    for (const role of ['user', 'operator'] as const) {
      for (const field of allowed(role)) {
        it(`lets a ${role} search ${field.id}, by id or by name, in any case`, () => {
          for (const value of [field.id, field.name, field.id.toUpperCase(), field.name.toLowerCase()]) {
            expect(parseSearchCriteria(json({ field: value }), { role }).field.id).toBe(field.id);
            expect(parseSearchCriteria(form({ field: value }), { role }).field.id).toBe(field.id);
          }
        });
      }
      for (const field of refused(role)) {
        it(`refuses ${field.id} to a ${role} as invalid field`, () => {
          expect(refusedParameter(json({ field: field.id }), role)).toBe('field');
          expect(refusedParameter(json({ field: field.name }), role)).toBe('field');
        });
      }
    }

    it.each([
      ['an unknown id', 'Everything'],
      ['the empty string', ''],
      ['a number', 20],
      ['a list', ['Global']],
      ['an object', { id: 'Global' }],
      ['a boolean', true],
    ])('refuses %s as invalid field', (_, value) => {
      expect(refusedParameter(json({ field: value }))).toBe('field');
    });

    it('refuses a field given twice in a form', () => {
      expect(refusedParameter(form({ field: ['Global', 'JobName'] }))).toBe('field');
    });
  });

  describe('query', () => {
    it('accepts 500 characters and refuses 501', () => {
      expect(parseSearchCriteria(json({ query: 'a'.repeat(500) }), user).query).toHaveLength(500);
      expect(refusedParameter(json({ query: 'a'.repeat(501) }))).toBe('query');
    });

    it('counts characters, not UTF-16 code units: 500 emoji are a valid query', () => {
      expect(parseSearchCriteria(json({ query: '📷'.repeat(500) }), user).query).toBe('📷'.repeat(500));
      expect(refusedParameter(json({ query: '📷'.repeat(501) }))).toBe('query');
    });

    it('accepts 32 different words and refuses 33', () => {
      const distinct = (count: number) => Array.from({ length: count }, (_, i) => `w${i}x`).join(' ');
      expect(parseSearchCriteria(json({ query: distinct(32) }), user).query).toBe(distinct(32));
      expect(refusedParameter(json({ query: distinct(33) }))).toBe('query');
      expect(refusedParameter(form({ query: distinct(33) }))).toBe('query');
    });

    it('does not count repeated words or words that start another word of the query', () => {
      const many = `${Array.from({ length: 32 }, (_, i) => `word${i}z`).join(' ')} ${'Word0Z '.repeat(20)} w wo wor`;
      expect(parseSearchCriteria(json({ query: many }), user).query).toBe(many);
    });

    it('keeps the query text as sent, for the engine to cut into words', () => {
      expect(parseSearchCriteria(form({ query: '  Spr "cat" OR * ' }), user).query).toBe('  Spr "cat" OR * ');
    });

    it.each([
      ['a number', 123],
      ['a list', ['a']],
      ['an object', {}],
    ])('refuses %s as invalid query', (_, value) => {
      expect(refusedParameter(json({ query: value }))).toBe('query');
    });
  });

  describe('page and pageSize', () => {
    it('reads JSON integers and form digit strings alike', () => {
      expect(parseSearchCriteria(json({ page: 3, pageSize: 50 }), user)).toMatchObject({ page: 3, pageSize: 50 });
      expect(parseSearchCriteria(form({ page: '3', pageSize: '50' }), user)).toMatchObject({ page: 3, pageSize: 50 });
    });

    it.each([
      ['a negative page', { page: -1 }, 'page'],
      ['a fractional page', { page: 1.5 }, 'page'],
      ['a text page', { page: 'two' }, 'page'],
      ['a boolean page', { page: true }, 'page'],
      ['a page beyond safe integers', { page: 2 ** 60 }, 'page'],
      ['pageSize 0', { pageSize: 0 }, 'pageSize'],
      ['pageSize 101', { pageSize: 101 }, 'pageSize'],
      ['a fractional pageSize', { pageSize: 20.5 }, 'pageSize'],
      ['a negative pageSize', { pageSize: -20 }, 'pageSize'],
    ])('refuses %s', (_, fields, parameter) => {
      expect(refusedParameter(json(fields))).toBe(parameter);
    });

    it.each([
      ['a negative page', { page: '-1' }, 'page'],
      ['a fractional page', { page: '1.5' }, 'page'],
      ['a page given twice', { page: ['1', '2'] }, 'page'],
      ['pageSize 0', { pageSize: '0' }, 'pageSize'],
      ['pageSize 101', { pageSize: '101' }, 'pageSize'],
    ])('refuses %s in a form', (_, fields, parameter) => {
      expect(refusedParameter(form(fields))).toBe(parameter);
    });

    it('reads an empty form value as an absent page or pageSize', () => {
      expect(parseSearchCriteria(form({ page: '', pageSize: '' }), user)).toMatchObject({ page: 0, pageSize: 20 });
    });

    it.each([
      [499, 20],
      [99, 100],
      [9_999, 1],
      [0, 100],
    ])('serves page %i of %i, which ends at or before the 10 000th job', (page, pageSize) => {
      expect(parseSearchCriteria(json({ page, pageSize }), user)).toMatchObject({ page, pageSize });
    });

    it.each([
      [500, 20],
      [100, 100],
      [10_000, 1],
      [500, undefined],
    ])('names page when page %i of %s would end past the 10 000th job', (page, pageSize) => {
      expect(refusedParameter(json({ page, pageSize }))).toBe('page');
    });

    it('names pageSize, not page, when pageSize itself is out of range', () => {
      expect(refusedParameter(json({ page: 5_000, pageSize: 500 }))).toBe('pageSize');
    });
  });

  describe('statuses', () => {
    it('reads a JSON list, a JSON string, repeated form keys and a single form key', () => {
      expect(parseSearchCriteria(json({ statuses: ['CJ_NEW', 'CJ_ACCEPT'] }), user).statuses).toEqual([
        'CJ_NEW',
        'CJ_ACCEPT',
      ]);
      expect(parseSearchCriteria(json({ statuses: 'CJ_NEW' }), user).statuses).toEqual(['CJ_NEW']);
      expect(parseSearchCriteria(form({ statuses: ['CJ_NEW', 'CJ_ACCEPT'] }), user).statuses).toEqual([
        'CJ_NEW',
        'CJ_ACCEPT',
      ]);
      expect(parseSearchCriteria(form({ statuses: 'ERROR' }), user).statuses).toEqual(['ERROR']);
    });

    it('accepts every known status', () => {
      expect(parseSearchCriteria(json({ statuses: [...JOB_STATUSES] }), user).statuses).toEqual([...JOB_STATUSES]);
    });

    it('reads an empty list as every status', () => {
      expect(parseSearchCriteria(json({ statuses: [] }), user).statuses).toBeUndefined();
    });

    it('drops repeated statuses', () => {
      expect(parseSearchCriteria(json({ statuses: ['ERROR', 'CJ_NEW', 'ERROR'] }), user).statuses).toEqual([
        'ERROR',
        'CJ_NEW',
      ]);
    });

    it.each([
      ['an unknown status', ['CJ_NEW', 'CJ_LOST']],
      ['a status in another case', ['cj_new']],
      ['a status with spaces', [' CJ_NEW']],
      ['an empty string', ['']],
      ['a null element', ['CJ_NEW', null]],
      ['a number element', [1]],
      ['a nested list', [['CJ_NEW']]],
      ['an object', { CJ_NEW: true }],
      ['a number', 3],
    ])('refuses %s as invalid statuses', (_, value) => {
      expect(refusedParameter(json({ statuses: value }))).toBe('statuses');
    });

    it('refuses an unknown status in a form', () => {
      expect(refusedParameter(form({ statuses: ['CJ_NEW', 'NOPE'] }))).toBe('statuses');
      expect(refusedParameter(form({ statuses: '' }))).toBe('statuses');
    });
  });

  describe('date ranges', () => {
    const ranges = [
      ['dateFrom', 'dateTo', 'created'],
      ['deliveredDateFrom', 'deliveredDateTo', 'delivered'],
    ] as const;

    for (const [fromName, toName, key] of ranges) {
      it(`reads ${fromName} and ${toName} in every contract form`, () => {
        const criteria = parseSearchCriteria(
          json({ [fromName]: '2016-01-14T14:57:33.8931021+01:00', [toName]: '2016-02-01' }),
          user,
        );
        expect(criteria[key].from).toEqual({
          epochMillis: ms('2016-01-14T13:57:33.893Z'),
          nanosOfMillisecond: 102_100,
        });
        expect(criteria[key].to).toEqual({ epochMillis: ms('2016-02-01T00:00:00Z'), nanosOfMillisecond: 0 });
      });

      it(`accepts ${fromName} alone and ${toName} alone`, () => {
        expect(parseSearchCriteria(form({ [fromName]: '2016-01-14' }), user)[key]).toEqual({
          from: { epochMillis: ms('2016-01-14'), nanosOfMillisecond: 0 },
        });
        expect(parseSearchCriteria(form({ [toName]: '2016-01-14' }), user)[key]).toEqual({
          to: { epochMillis: ms('2016-01-14'), nanosOfMillisecond: 0 },
        });
      });

      for (const name of [fromName, toName]) {
        it.each([
          ['an impossible date', '2016-02-30'],
          ['February 29th of a common year', '2015-02-29'],
          ['hour 24', '2016-01-14T24:00:00Z'],
          ['minute 60', '2016-01-14T10:60:00Z'],
          ['a time without a zone', '2016-01-14T10:00:00'],
          ['a number', 1452779853000],
          ['a list', ['2016-01-14']],
          ['free text', 'yesterday'],
        ])(`refuses %s as invalid ${name}`, (_, value) => {
          expect(refusedParameter(json({ [name]: value }))).toBe(name);
        });
      }

      it(`reads an empty form value as an absent ${fromName} or ${toName}, but refuses an empty JSON string`, () => {
        expect(parseSearchCriteria(form({ [fromName]: '', [toName]: '' }), user)[key]).toEqual({});
        expect(refusedParameter(json({ [fromName]: '' }))).toBe(fromName);
        expect(refusedParameter(json({ [toName]: '' }))).toBe(toName);
      });

      it(`names ${toName} when ${fromName} is later`, () => {
        expect(refusedParameter(json({ [fromName]: '2016-01-15', [toName]: '2016-01-14' }))).toBe(toName);
        expect(
          refusedParameter(json({ [fromName]: '2016-01-14T10:00:00.0000001Z', [toName]: '2016-01-14T10:00:00Z' })),
        ).toBe(toName);
      });

      it(`accepts ${fromName} equal to ${toName} (an empty range), in any notation`, () => {
        expect(
          refusedParameter(json({ [fromName]: '2016-01-14T01:00:00+01:00', [toName]: '2016-01-14' })),
        ).toBeUndefined();
      });
    }
  });

  describe('order of checks', () => {
    it('names the first invalid parameter in the order of the contract table', () => {
      const everythingWrong = {
        field: 'Nope',
        query: 'x'.repeat(501),
        page: -1,
        pageSize: 0,
        statuses: ['NOPE'],
        dateFrom: 'x',
        dateTo: 'x',
        deliveredDateFrom: 'x',
        deliveredDateTo: 'x',
      };
      const order = Object.keys(everythingWrong);
      const remaining: Record<string, unknown> = { ...everythingWrong };
      for (const name of order) {
        expect(refusedParameter(json(remaining))).toBe(name);
        delete remaining[name];
      }
      expect(refusedParameter(json(remaining))).toBeUndefined();
    });
  });

  it('gives the same criteria for a JSON body and its form encoding', () => {
    const status = fc.constantFrom(...JOB_STATUSES);
    const isoDate = fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
    fc.assert(
      fc.property(
        fc.record(
          {
            field: fc.constantFrom('Global', 'jobname', 'File name', 'GUID', 'JobNumber'),
            query: fc.string({ maxLength: 40 }),
            page: fc.integer({ min: 0, max: 99 }),
            pageSize: fc.integer({ min: 1, max: 100 }),
            statuses: fc.array(status, { minLength: 1, maxLength: 4 }),
            dateFrom: isoDate,
            deliveredDateTo: isoDate,
          },
          { requiredKeys: [] },
        ),
        (fields) => {
          const formFields: Record<string, string | string[]> = {};
          for (const [name, value] of Object.entries(fields)) {
            if (Array.isArray(value)) formFields[name] = value.length === 1 ? value[0]! : value;
            else formFields[name] = String(value);
          }
          expect(parseSearchCriteria(form(formFields), user)).toEqual(parseSearchCriteria(json(fields), user));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('toSearchQuery', () => {
  const criteria = (fields: Record<string, unknown> = {}, role: Role = 'user'): SearchCriteria =>
    parseSearchCriteria(json(fields), { role });

  it('confines a user to its own account', () => {
    expect(toSearchQuery(criteria(), user).accountId).toBe(42);
  });

  it('confines a user of account 0 to account 0: 0 names an account, not every account', () => {
    expect(toSearchQuery(criteria(), { role: 'user', accountId: 0 })).toHaveProperty('accountId', 0);
  });

  it('lets an operator search every account', () => {
    expect(toSearchQuery(criteria({}, 'operator'), operator)).not.toHaveProperty('accountId');
  });

  it('gives a Global search the text fields of the role, and the account number to operators only', () => {
    expect(toSearchQuery(criteria(), user)).toMatchObject({
      field: 'Global',
      globalFields: [
        'JobName',
        'FileName',
        'JobInstruction',
        'JobTags',
        'FileTags',
        'FileInstruction',
        'InvoiceReference',
      ],
      globalMatchesAccountNumber: false,
    });
    expect(toSearchQuery(criteria({}, 'operator'), operator)).toMatchObject({
      field: 'Global',
      globalFields: ['AccountName', 'JobName', 'FileName', 'JobInstruction', 'FileInstruction', 'InvoiceReference'],
      globalMatchesAccountNumber: true,
    });
  });

  it('turns page and pageSize into offset and limit', () => {
    expect(toSearchQuery(criteria({ page: 3, pageSize: 25 }), user)).toMatchObject({ offset: 75, limit: 25 });
    expect(toSearchQuery(criteria(), user)).toMatchObject({ offset: 0, limit: 20 });
  });

  it('passes the field id and the query text through', () => {
    expect(toSearchQuery(criteria({ field: 'job name', query: 'spr cat' }), user)).toMatchObject({
      field: 'JobName',
      text: 'spr cat',
    });
  });

  it('filters statuses only when some were asked for', () => {
    expect(toSearchQuery(criteria(), user)).not.toHaveProperty('statuses');
    expect(toSearchQuery(criteria({ statuses: ['CJ_NEW'] }), user).statuses).toEqual(['CJ_NEW']);
  });

  it('turns datetimes into millisecond bounds, rounding sub-millisecond instants up', () => {
    const query = toSearchQuery(
      criteria({
        dateFrom: '2016-01-14T10:00:00.1234Z',
        dateTo: '2016-01-15',
        deliveredDateTo: '2016-03-01T00:00:00Z',
      }),
      user,
    );
    expect(query.created).toEqual({ from: ms('2016-01-14T10:00:00.124Z'), to: ms('2016-01-15T00:00:00Z') });
    expect(query.delivered).toEqual({ to: ms('2016-03-01T00:00:00Z') });
  });

  it('sets no date filter when no datetime was given', () => {
    const query = toSearchQuery(criteria(), user);
    expect(query).not.toHaveProperty('created');
    expect(query).not.toHaveProperty('delivered');
  });
});
