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
});
