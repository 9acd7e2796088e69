/**
 * The datetime format of docs/contract.md §4, as search requests accept it:
 *
 * - `YYYY-MM-DDThh:mm:ss` with 0–9 fractional digits and a zone, `Z` or `±hh:mm`
 *   (`2016-01-14T14:57:33.8931021+01:00`, `2016-01-14T13:57:33Z`); the seconds may be left out
 *   (`2016-01-14T13:57Z`, ISO 8601's reduced precision), and `T`/`Z` may be lower case (RFC 3339);
 * - a date alone (`2016-01-14`), meaning midnight UTC of that day.
 *
 * Anything else is refused: a time without a zone (its instant is unknown), an impossible calendar date
 * (`2016-02-30`, `2015-02-29`), hour 24, minute or second 60 (leap seconds included), an offset beyond
 * `±23:59`, ordinal or week dates, basic (compact) notation, and surrounding whitespace.
 */

/**
 * An instant with nanosecond precision: `epochMillis` (whole milliseconds since 1970-01-01T00:00:00Z,
 * rounded down) plus `nanosOfMillisecond` (0–999 999), so that no digit a client sent is lost.
 */
export interface PreciseInstant {
  epochMillis: number;
  nanosOfMillisecond: number;
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2})))?$/;

const MILLIS_PER_MINUTE = 60_000;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/** Days in a month (1–12) of a year, by the proleptic Gregorian calendar. */
const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** Epoch milliseconds of a UTC calendar date and time; correct for years 0–99 too (no `Date.UTC` 19xx shift). */
const utcMillis = (year: number, month: number, day: number, hour: number, minute: number, second: number): number => {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
};

/**
 * Parses a contract datetime; `undefined` when the text is not one (the caller names the parameter).
 *
 * @example
 * parseDateTime('2016-01-14T14:57:33.8931021+01:00'); // { epochMillis: 1452779853893, nanosOfMillisecond: 102100 }
 * parseDateTime('2016-01-14'); // midnight UTC
 * parseDateTime('2016-01-14T14:57:33'); // undefined: no zone
 */
export const parseDateTime = (text: string): PreciseInstant | undefined => {
  const match = DATE_TIME.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (h === undefined) return { epochMillis: utcMillis(year, month, day, 0, 0, 0), nanosOfMillisecond: 0 };

  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  if (hour > 23 || minute > 59 || second > 59) return undefined;

  let offsetMillis = 0;
  if (zulu === undefined) {
    const zoneHours = Number(offsetHours);
    const zoneMinutes = Number(offsetMinutes);
    if (zoneHours > 23 || zoneMinutes > 59) return undefined;
    offsetMillis = (sign === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes) * MILLIS_PER_MINUTE;
  }

  const nanos = Number((fraction ?? '').padEnd(9, '0'));
  const millisOfSecond = Math.floor(nanos / 1_000_000);
  return {
    epochMillis: utcMillis(year, month, day, hour, minute, second) + millisOfSecond - offsetMillis,
    nanosOfMillisecond: nanos % 1_000_000,
  };
};

/** Orders two instants: negative when `a` is earlier, 0 when equal, positive when later. */
export const compareInstants = (a: PreciseInstant, b: PreciseInstant): number =>
  a.epochMillis - b.epochMillis || a.nanosOfMillisecond - b.nanosOfMillisecond;

/**
 * The whole-millisecond bound equivalent to an instant for comparisons with millisecond timestamps.
 * Stored datetimes are whole milliseconds `t`, and for those both `t ≥ x ⇔ t ≥ ⌈x⌉` and
 * `t < x ⇔ t < ⌈x⌉` hold, so rounding up keeps `from ≤ t < to` exact at every precision.
 */
export const boundMillis = (instant: PreciseInstant): number =>
  instant.epochMillis + (instant.nanosOfMillisecond > 0 ? 1 : 0);
