import { expect } from 'chai';
import { InvalidParameterError, QueryLimitError } from '../../shared/errors/index.js';
import { nextPeriodStart, PERCENT_RANGES } from '../../shared/search/aggregations.js';
import { histogramBucketCondition, histogramBucketLabel } from '../../services/api/html/pages.js';
import { presentFacetDefinitions } from '../../services/api/protocols/records/capabilities.js';
import {
  facetBucketsAsked,
  MAX_BUCKET_COUNT,
  parseFacetsParameter,
} from '../../services/api/protocols/records/parse.js';

const LIMITS = { maxFacets: 3, maxAggregationBuckets: 50 };

function refused(
  value: string,
  type: typeof InvalidParameterError | typeof QueryLimitError,
  ...words: string[]
): void {
  let error: unknown;
  try {
    parseFacetsParameter(value, LIMITS);
  } catch (caught) {
    error = caught;
  }
  expect(error, value).to.be.instanceOf(type);
  const message = (error as Error).message;
  for (const word of words) expect(message, value).to.contain(word);
  expect((error as { locator?: string }).locator ?? 'facets').to.equal('facets');
}

describe('Records facets: parsing histogram and range facets', () => {
  it('reads term facets as before: bucket count (at most the maximum) and order', () => {
    expect(parseFacetsParameter('keywords:20:value_asc,type', LIMITS)).to.deep.equal([
      {
        kind: 'term',
        name: 'keywords',
        property: 'keywords',
        bucketCount: 20,
        sortedBy: 'value_asc',
      },
      { kind: 'term', name: 'type', property: 'type', bucketCount: 10, sortedBy: 'count_desc' },
    ]);
    expect(parseFacetsParameter('platform:5000', LIMITS)[0]).to.include({
      bucketCount: MAX_BUCKET_COUNT,
    });
  });

  it('reads a date histogram by any spelling of the start, with its interval (month by default)', () => {
    expect(parseFacetsParameter('datetime', LIMITS)).to.deep.equal([
      {
        kind: 'date-histogram',
        name: 'datetime',
        property: 'start_datetime',
        interval: 'month',
        bucketCount: undefined,
      },
    ]);
    expect(parseFacetsParameter('start_datetime::year', LIMITS)[0]).to.include({
      interval: 'year',
      bucketCount: undefined,
    });
    expect(parseFacetsParameter('TIME:12:week', LIMITS)[0]).to.include({
      property: 'start_datetime',
      interval: 'week',
      bucketCount: 12,
    });
  });

  it('reads a numeric range facet with its bands of ten and an optional bucket count', () => {
    const [cloud, snow] = parseFacetsParameter('CLOUDCOVER,snowCover:3', LIMITS);
    expect(cloud).to.deep.equal({
      kind: 'ranges',
      name: 'CLOUDCOVER',
      property: 'cloudCover',
      ranges: PERCENT_RANGES,
      bucketCount: undefined,
    });
    expect(snow).to.include({ property: 'snowCover', bucketCount: 3 });
  });

  it('counts a facet asked for twice once, and kinds together against QUERY_MAX_FACETS', () => {
    expect(parseFacetsParameter('datetime::day,start_datetime::year', LIMITS)).to.have.length(1);
    refused('type,datetime,cloudCover,keywords', QueryLimitError, 'QUERY_MAX_FACETS');
  });

  it('adds up the buckets the facets ask for, for the expensive lane', () => {
    const asked = (value: string) =>
      facetBucketsAsked(parseFacetsParameter(value, { ...LIMITS, maxFacets: 16 }));
    // The HTML search page's facets, term facets at their default count, at their largest.
    expect(asked('type:10,keywords:15')).to.equal(25);
    expect(asked('type,keywords')).to.equal(20);
    expect(asked('keywords:100:value_asc,KEYWORDS:5')).to.equal(MAX_BUCKET_COUNT);
    // A range facet's bands, or its count; a histogram's count, or every period.
    expect(asked('cloudCover')).to.equal(PERCENT_RANGES.length);
    expect(asked('cloudCover:3,datetime:12:month')).to.equal(15);
    expect(asked('datetime::year')).to.equal(MAX_BUCKET_COUNT);
    expect(facetBucketsAsked([])).to.equal(0);
  });

  it('refuses unknown facets, intervals, options and bucket counts beyond the bound, naming them', () => {
    refused(
      'title',
      InvalidParameterError,
      '"title" is not a facet',
      'start_datetime',
      'cloudCover',
    );
    refused('datetime::fortnight', InvalidParameterError, '"fortnight"', 'year, quarter, month');
    refused('datetime::count_desc', InvalidParameterError, '"count_desc"', 'date histogram');
    refused('cloudCover::month', InvalidParameterError, 'range facet', 'cloudCover::month');
    refused('datetime:0', InvalidParameterError, 'positive integer');
    refused('type:10:month', InvalidParameterError, 'order "month"');
    refused(
      'datetime:51:day',
      QueryLimitError,
      'facets=datetime:51:day',
      'QUERY_MAX_AGGREGATION_BUCKETS',
    );
    refused('cloudCover:51', QueryLimitError, 'QUERY_MAX_AGGREGATION_BUCKETS');
    expect(parseFacetsParameter('cloudCover:50', LIMITS)[0]).to.include({ bucketCount: 50 });
  });

  it('finds the first instant of the next calendar period', () => {
    expect(nextPeriodStart('2024-01-01T00:00:00.000Z', 'year')).to.equal(
      '2025-01-01T00:00:00.000Z',
    );
    expect(nextPeriodStart('2024-10-01T00:00:00.000Z', 'quarter')).to.equal(
      '2025-01-01T00:00:00.000Z',
    );
    expect(nextPeriodStart('2024-12-01T00:00:00.000Z', 'month')).to.equal(
      '2025-01-01T00:00:00.000Z',
    );
    expect(nextPeriodStart('2024-12-30T00:00:00.000Z', 'week')).to.equal(
      '2025-01-06T00:00:00.000Z',
    );
    expect(nextPeriodStart('2024-02-28T00:00:00.000Z', 'day')).to.equal('2024-02-29T00:00:00.000Z');
    expect(nextPeriodStart('2024-12-31T23:00:00.000Z', 'hour')).to.equal(
      '2025-01-01T00:00:00.000Z',
    );
  });

  it('offers the histogram and range facets in the facets definition document', () => {
    const { facets } = presentFacetDefinitions('http://cairn.test');
    expect(facets.start_datetime).to.include({ type: 'histogram', interval: 'month' });
    expect(facets.cloudCover).to.include({ type: 'histogram', bucketType: 'fixedInterval' });
    expect(facets.keywords).to.include({ type: 'term' });
  });

  it('labels histogram buckets and writes the CQL2 condition that finds their records', () => {
    const month = {
      value: '2024-04-01T00:00:00.000Z',
      min: '2024-04-01T00:00:00.000Z',
      max: '2024-05-01T00:00:00.000Z',
      count: 3,
    };
    expect(histogramBucketLabel(month, 'month')).to.equal('2024-04');
    expect(histogramBucketLabel(month, 'quarter')).to.equal('2024-Q2');
    expect(histogramBucketLabel(month, 'year')).to.equal('2024');
    expect(histogramBucketCondition('start_datetime', month)).to.equal(
      "start_datetime >= TIMESTAMP('2024-04-01T00:00:00.000Z') AND start_datetime < TIMESTAMP('2024-05-01T00:00:00.000Z')",
    );
    const open = { value: '90-*', min: 90, count: 1 };
    expect(histogramBucketLabel(open)).to.equal('90 and above');
    expect(histogramBucketCondition('cloudCover', open)).to.equal('cloudCover >= 90');
    expect(histogramBucketLabel({ value: '0-10', min: 0, max: 10, count: 1 })).to.equal(
      '0 to under 10',
    );
  });
});
