/**
 * Fuzzing of the shared query-parameter grammars (shared/query/params.ts): bbox, datetime (the
 * lenient Records flavour and the strict STAC one), limit, offset, sortby and q. Inputs are
 * mostly near-valid (grammar-built, then corrupted). Every input must parse to a well-formed
 * value or fail with an InvalidParameterError naming the parameter; nothing else.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidParameterError } from '../../../shared/errors/index.js';
import {
  parseBbox,
  parseDatetime,
  parseFreeText,
  parseLimit,
  parseOffset,
  parseSortby,
} from '../../../shared/query/params.js';
import { describeRun, fuzzParameters, Tally } from '../../support/fuzz-settings.js';
import { bboxText, datetimeText, sortbyText } from '../../support/fuzz-requests.js';

const RUNS = 4_000;

const anyText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

/**
 * Runs `parse` on every input; success must satisfy `check`, failure must be an
 * InvalidParameterError whose locator is `name`.
 */
function fuzz<T>(
  name: string,
  inputs: fc.Arbitrary<string>,
  parse: (value: string) => T,
  check: (result: T, input: string) => void,
): void {
  const tally = new Tally();
  fc.assert(
    fc.property(
      fc.oneof({ weight: 4, arbitrary: inputs }, { weight: 1, arbitrary: anyText }),
      (input) => {
        let result: T;
        try {
          result = parse(input);
        } catch (error) {
          if (!(error instanceof InvalidParameterError)) throw error;
          if (error.locator !== name) throw new Error(`locator ${error.locator}, expected ${name}`);
          tally.add('InvalidParameterError');
          return;
        }
        check(result, input);
        tally.add('parsed');
      },
    ),
    fuzzParameters(RUNS),
  );
  console.log(describeRun(name, tally.total, tally.counts));
  expect(tally.counts.get('parsed') ?? 0, 'some inputs must parse').to.be.greaterThan(0);
  expect(tally.counts.get('InvalidParameterError') ?? 0, 'some inputs must fail').to.be.greaterThan(
    0,
  );
}

function assertThat(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

const isUtcTimestamp = (value: string | null): boolean =>
  value === null ||
  (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) &&
    !Number.isNaN(Date.parse(value)));

describe('query parameter grammars under fuzzing', function () {
  this.timeout(60_000);

  it('bbox → a CRS84 box or InvalidParameterError', () => {
    fuzz(
      'bbox',
      bboxText,
      (value) => parseBbox(value),
      ([west, south, east, north], input) => {
        assertThat(
          [west, south, east, north].every(Number.isFinite),
          () => `non-finite box from "${input}"`,
        );
        assertThat(
          west >= -180 && east <= 180 && east >= -180 && west <= 180,
          () => `longitude out of range: "${input}"`,
        );
        assertThat(
          south >= -90 && north <= 90 && south <= north,
          () => `latitude out of order/range: "${input}"`,
        );
      },
    );
  });

  for (const allowDates of [true, false]) {
    it(`datetime (${allowDates ? 'Records, dates allowed' : 'STAC, strict'}) → an ordered UTC interval or InvalidParameterError`, () => {
      fuzz(
        'datetime',
        datetimeText,
        (value) => parseDatetime(value, { allowDates }),
        ({ start, end }, input) => {
          assertThat(start !== null || end !== null, () => `fully open interval from "${input}"`);
          assertThat(
            isUtcTimestamp(start) && isUtcTimestamp(end),
            () => `not UTC timestamps: ${start}/${end} from "${input}"`,
          );
          assertThat(
            !start || !end || start <= end,
            () => `interval ends before it starts: "${input}"`,
          );
        },
      );
    });
  }

  it('limit and offset → bounded integers or InvalidParameterError', () => {
    const integers = fc.oneof(
      fc.integer({ min: -10, max: 5000 }).map(String),
      fc.constantFrom('1e3', '+7', ' 8 ', '9007199254740993', '0x1', ''),
    );
    fuzz(
      'limit',
      integers,
      (value) => parseLimit(value, 10, 100),
      (limit, input) => {
        assertThat(
          Number.isInteger(limit) && limit >= 1 && limit <= 100,
          () => `limit ${limit} from "${input}"`,
        );
      },
    );
    fuzz(
      'offset',
      integers,
      (value) => parseOffset(value),
      (offset, input) => {
        assertThat(
          Number.isSafeInteger(offset) && offset >= 0,
          () => `offset ${offset} from "${input}"`,
        );
      },
    );
  });

  it('sortby → sortable keys or InvalidParameterError', () => {
    fuzz(
      'sortby',
      sortbyText,
      (value) => parseSortby(value),
      (keys, input) => {
        for (const key of keys)
          assertThat(
            key.direction === 'asc' || key.direction === 'desc',
            () => `direction from "${input}"`,
          );
      },
    );
  });

  it('q → word lists (never a throw)', () => {
    fc.assert(
      fc.property(anyText, (value) => {
        const terms = parseFreeText(value);
        if (terms !== undefined)
          for (const words of terms)
            assertThat(
              words.length > 0 && words.every((word) => word !== '' && !/\s/.test(word)),
              () => `words of "${value}"`,
            );
      }),
      fuzzParameters(RUNS),
    );
  });
});
