import { expect } from 'chai';
import { parseTimestamp, parseTimeValue } from '../../shared/records/time.js';

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
  it('refuses years below 100 in every form (JavaScript dates would read them as 19xx)', () => {
    for (const text of ['0050', '0050-06', '0050-06-01', '0050-06-01T00:00:00Z'])
      expect(parseTimeValue(text), text).to.equal(undefined);
    expect(parseTimeValue('0100')?.start).to.equal('0100-01-01T00:00:00.000Z');
  });
  it('keeps leap days, leap seconds and day-crossing offsets exact', () => {
    expect(parseTimeValue('2000-02')?.end).to.equal('2000-02-29T23:59:59.999Z');
    expect(parseTimeValue('1900-02-29')).to.equal(undefined);
    expect(parseTimestamp('2016-12-31T23:59:60Z')).to.equal('2016-12-31T23:59:59.000Z');
    expect(parseTimestamp('2024-12-31T23:30:00.5-01:00')).to.equal('2025-01-01T00:30:00.500Z');
    expect(parseTimestamp('2024-06-01t12:00:00.05z')).to.equal('2024-06-01T12:00:00.050Z');
  });
});
