import { expect } from 'chai';
import { parseTimestamp, parseTimeValue } from '../../shared/records/time.js';
import { defined } from '../support/defined.js';

describe('time values', () => {
  it('normalises offsets to UTC with milliseconds', () => {
    expect(parseTimestamp('2024-11-28T09:23:31.024000Z')).to.equal('2024-11-28T09:23:31.024Z');
    expect(parseTimestamp('2024-01-01T00:30:00-01:00')).to.equal('2024-01-01T01:30:00.000Z');
  });
  it('requires an offset unless told to assume UTC', () => {
    expect(parseTimestamp('2024-01-01T00:00:00')).to.equal(undefined);
    expect(parseTimestamp('2024-01-01T00:00:00', true)).to.equal('2024-01-01T00:00:00.000Z');
  });
  it('reads dates, months and years as the spans they stand for', () => {
    expect(parseTimeValue('2020-02-29')).to.deep.equal({
      start: '2020-02-29T00:00:00.000Z',
      end: '2020-02-29T23:59:59.999Z',
      dateOnly: true,
    });
    expect(parseTimeValue('2021-02')?.end).to.equal('2021-02-28T23:59:59.999Z');
    expect(parseTimeValue('1999')?.end).to.equal('1999-12-31T23:59:59.999Z');
  });
  it('refuses impossible calendar dates and garbage', () => {
    expect(parseTimeValue('2021-02-29')).to.equal(undefined);
    expect(parseTimeValue('2020-13-01')).to.equal(undefined);
    expect(parseTimeValue('yesterday')).to.equal(undefined);
  });
  it('reads every year RFC 3339 writes, 0000 to 9999, in every form (not 0–99 as 1900–1999)', () => {
    expect(parseTimeValue('0050')).to.deep.equal({
      start: '0050-01-01T00:00:00.000Z',
      end: '0050-12-31T23:59:59.999Z',
      dateOnly: true,
    });
    expect(parseTimeValue('0050-06')?.end).to.equal('0050-06-30T23:59:59.999Z');
    expect(parseTimeValue('0001-01-01')?.start).to.equal('0001-01-01T00:00:00.000Z');
    expect(parseTimestamp('0001-01-01T00:00:00Z')).to.equal('0001-01-01T00:00:00.000Z');
    expect(parseTimestamp('0000-01-01T00:00:00Z')).to.equal('0000-01-01T00:00:00.000Z');
    expect(parseTimestamp('9999-12-31T23:59:59.999Z')).to.equal('9999-12-31T23:59:59.999Z');
    // With an offset the instant is computed: year 50 stays year 50 (Date.UTC says 1950).
    expect(parseTimestamp('0050-06-01T01:00:00+02:00')).to.equal('0050-05-31T23:00:00.000Z');
    expect(Date.parse(defined(parseTimestamp('0500-03-01T00:00:00+01:00'), '0500'))).to.equal(
      Date.parse('0500-02-28T23:00:00.000Z'),
    );
    // Year 0 is a leap year of the proleptic Gregorian calendar; 1900 (what Date.UTC reads) is not.
    expect(parseTimeValue('0000-02-29')?.end).to.equal('0000-02-29T23:59:59.999Z');
    expect(parseTimestamp('0000-03-01T00:30:00+01:00')).to.equal('0000-02-29T23:30:00.000Z');
  });
  it('refuses what leaves the years 0000–9999, written or after its offset', () => {
    for (const text of ['-0001-01-01', '10000-01-01', '+002020-01-01', '099', '0100-02-29'])
      expect(parseTimeValue(text), text).to.equal(undefined);
    expect(parseTimestamp('0000-01-01T00:30:00+01:00')).to.equal(undefined);
    expect(parseTimestamp('9999-12-31T23:30:00-01:00')).to.equal(undefined);
  });
  it('keeps leap days, leap seconds and day-crossing offsets exact', () => {
    expect(parseTimeValue('2000-02')?.end).to.equal('2000-02-29T23:59:59.999Z');
    expect(parseTimeValue('1900-02-29')).to.equal(undefined);
    expect(parseTimestamp('2016-12-31T23:59:60Z')).to.equal('2016-12-31T23:59:59.000Z');
    expect(parseTimestamp('2024-12-31T23:30:00.5-01:00')).to.equal('2025-01-01T00:30:00.500Z');
    expect(parseTimestamp('2024-06-01t12:00:00.05z')).to.equal('2024-06-01T12:00:00.050Z');
  });
});
