import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundMillis, compareInstants, parseDateTime } from '../../../functions/search/datetime';

const millis = (iso: string): number => Date.parse(iso);

describe('parseDateTime', () => {
  describe('accepts the contract forms', () => {
    it.each([
      ['2016-01-14T13:57:33Z', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14T13:57:33z', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14t13:57:33Z', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14T14:57:33+01:00', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14T08:27:33-05:30', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14T13:57:33-00:00', '2016-01-14T13:57:33.000Z'],
      ['2016-01-14T00:30:00+01:00', '2016-01-13T23:30:00.000Z'],
      ['2016-01-14T13:57:33.8Z', '2016-01-14T13:57:33.800Z'],
      ['2016-01-14T13:57:33.86Z', '2016-01-14T13:57:33.860Z'],
      ['2016-01-14T13:57:33.860Z', '2016-01-14T13:57:33.860Z'],
      ['2016-01-14T14:57:33.8931021+01:00', '2016-01-14T13:57:33.893Z'],
      ['2016-01-14T13:57:33.999999999Z', '2016-01-14T13:57:33.999Z'],
      ['2016-01-14T13:57Z', '2016-01-14T13:57:00.000Z'],
      ['2016-01-14T14:57+01:00', '2016-01-14T13:57:00.000Z'],
      ['2016-01-14', '2016-01-14T00:00:00.000Z'],
      ['2016-02-29', '2016-02-29T00:00:00.000Z'],
      ['2000-02-29T23:59:59Z', '2000-02-29T23:59:59.000Z'],
      ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
      ['0050-06-01', '0050-06-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ])('reads %s as %s', (text, expected) => {
      expect(parseDateTime(text)?.epochMillis).toBe(millis(expected));
    });

    it('keeps the digits below a millisecond', () => {
      expect(parseDateTime('2016-01-14T14:57:33.8931021+01:00')).toEqual({
        epochMillis: millis('2016-01-14T13:57:33.893Z'),
        nanosOfMillisecond: 102_100,
      });
      expect(parseDateTime('2016-01-14T13:57:33.000000001Z')?.nanosOfMillisecond).toBe(1);
    });
  });

  describe('refuses everything else', () => {
    it.each([
      ['a time without a zone', '2016-01-14T13:57:33'],
      ['a time without a zone, with fraction', '2016-01-14T13:57:33.123'],
      ['February 30th', '2016-02-30'],
      ['February 29th of a common year', '2015-02-29'],
      ['February 29th of a century year', '1900-02-29T00:00:00Z'],
      ['April 31st', '2016-04-31'],
      ['month 13', '2016-13-01'],
      ['month 0', '2016-00-10'],
      ['day 0', '2016-01-00'],
      ['hour 24', '2016-01-14T24:00:00Z'],
      ['minute 60', '2016-01-14T13:60:00Z'],
      ['second 60 (leap second)', '2016-12-31T23:59:60Z'],
      ['ten fractional digits', '2016-01-14T13:57:33.1234567890Z'],
      ['a dot without digits', '2016-01-14T13:57:33.Z'],
      ['a fraction without seconds', '2016-01-14T13:57.5Z'],
      ['a time without minutes', '2016-01-14T13Z'],
      ['an offset without a colon', '2016-01-14T13:57:33+0100'],
      ['an hour-only offset', '2016-01-14T13:57:33+01'],
      ['an offset of 24 hours', '2016-01-14T13:57:33+24:00'],
      ['an offset minute of 60', '2016-01-14T13:57:33+01:60'],
      ['a space instead of T', '2016-01-14 13:57:33Z'],
      ['basic notation', '20160114T135733Z'],
      ['a week date', '2016-W02-4'],
      ['an ordinal date', '2016-014'],
      ['a year and month only', '2016-01'],
      ['a two-digit year', '16-01-14'],
      ['an expanded year', '+002016-01-14'],
      ['surrounding whitespace', ' 2016-01-14 '],
      ['a trailing newline', '2016-01-14\n'],
      ['non-ASCII digits', '٢٠١٦-01-14'],
      ['an epoch number', '1452779853000'],
      ['a Date.toString() text', 'Thu Jan 14 2016 14:57:33 GMT+0100'],
      ['the empty string', ''],
    ])('refuses %s (%j)', (_, text) => {
      expect(parseDateTime(text)).toBeUndefined();
    });
  });

  it('reads every instant JavaScript prints back to the same millisecond', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z') }),
        (d) => {
          fc.pre(!Number.isNaN(d.getTime()));
          expect(parseDateTime(d.toISOString())).toEqual({ epochMillis: d.getTime(), nanosOfMillisecond: 0 });
        },
      ),
    );
  });

  it('reads the same instant whatever offset it is written in', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-02T00:00:00Z'), max: new Date('2100-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (d, offsetMinutes) => {
          const local = new Date(d.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const abs = Math.abs(offsetMinutes);
          const zone = `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          expect(parseDateTime(local + zone)?.epochMillis).toBe(d.getTime());
        },
      ),
    );
  });

  it('never throws, whatever the text, and reads nothing but a finite instant', () => {
    // Any text, and valid instants with a few characters overwritten: both readable and unreadable ones.
    const damaged = fc
      .tuple(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.nat({ max: 24 }),
        fc.string({ maxLength: 3 }),
      )
      .map(([date, at, noise]) => {
        const text = date.toISOString();
        return text.slice(0, at) + noise + text.slice(at + noise.length);
      });
    fc.assert(
      fc.property(fc.oneof(fc.string(), damaged), (text) => {
        const parsed = parseDateTime(text);
        expect(
          parsed === undefined || Number.isFinite(parsed.epochMillis),
          `${text} read as ${parsed?.epochMillis}`,
        ).toBe(true);
      }),
    );
  });
});

describe('compareInstants', () => {
  it('orders by millisecond, then by the digits below it', () => {
    const a = parseDateTime('2016-01-14T13:57:33.1231Z')!;
    const b = parseDateTime('2016-01-14T13:57:33.1232Z')!;
    const c = parseDateTime('2016-01-14T14:57:33.1232+01:00')!;
    expect(compareInstants(a, b)).toBeLessThan(0);
    expect(compareInstants(b, a)).toBeGreaterThan(0);
    expect(compareInstants(b, c)).toBe(0);
  });
});

describe('boundMillis', () => {
  it('keeps a whole millisecond as it is', () => {
    expect(boundMillis(parseDateTime('2016-01-14T13:57:33.123Z')!)).toBe(millis('2016-01-14T13:57:33.123Z'));
  });

  it('rounds a sub-millisecond instant up, so that from ≤ t < to stays exact for millisecond timestamps', () => {
    const bound = boundMillis(parseDateTime('2016-01-14T13:57:33.1231Z')!);
    expect(bound).toBe(millis('2016-01-14T13:57:33.124Z'));
    // A job created at .123 is before the instant .1231: not ≥ from, and < to.
    expect(millis('2016-01-14T13:57:33.123Z') >= bound).toBe(false);
    expect(millis('2016-01-14T13:57:33.123Z') < bound).toBe(true);
    // A job created at .124 is after it: ≥ from, and not < to.
    expect(millis('2016-01-14T13:57:33.124Z') >= bound).toBe(true);
  });
});
