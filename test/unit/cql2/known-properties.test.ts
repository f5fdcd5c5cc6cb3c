/**
 * The filter checker with the catalogue's known properties (shared/query/check-filter.ts): the
 * one place that refuses a property the catalogue has never seen, for every protocol that passes
 * the set; the learned types of index document properties (shared/query/queryables.ts); and
 * the known-property cache of the API (services/api/common/known-queryables.ts), which reads
 * the backend's store again before it lets a property be refused.
 */
import { expect } from 'chai';
import { UnknownQueryableError, UnsortablePropertyError } from '../../../shared/errors/index.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { parseSortby } from '../../../shared/query/params.js';
import { ownPropertyTypes, type LearnedProperty } from '../../../shared/query/queryables.js';
import { buildEmptyRecord } from '../../../shared/records/core-record.js';
import { buildIndexDocument } from '../../../shared/records/index-document.js';
import { KnownQueryables } from '../../../services/api/common/known-queryables.js';

const KNOWN: ReadonlySet<string> = new Set(['NAME', 'pop_est', 'eo:bands']);
const check = (text: string, known?: ReadonlySet<string>) =>
  checkFilter(parseCql2Text(text), undefined, known);

/** The UnknownQueryableError a check throws, or undefined when it passes. */
function refusal(text: string, known: ReadonlySet<string>): UnknownQueryableError | undefined {
  try {
    check(text, known);
    return undefined;
  } catch (error) {
    if (error instanceof UnknownQueryableError) return error;
    throw error;
  }
}

describe('filter checker: known properties', () => {
  it('accepts core queryables by name, alias and in any case, and the known properties', () => {
    for (const text of [
      "title = 'x'",
      "dc:title = 'x'",
      "TITLE = 'x'",
      'eo:cloud_cover < 10',
      "NAME = 'France' AND pop_est > 1000",
      "S_INTERSECTS(geometry, BBOX(0, 0, 1, 1)) AND NAME LIKE 'F%'",
      "T_AFTER(datetime, TIMESTAMP('2020-01-01T00:00:00Z'))",
    ]) {
      expect(refusal(text, KNOWN), text).to.equal(undefined);
    }
  });

  it('refuses a property neither core nor known, naming it, wherever it appears', () => {
    for (const [text, name] of [
      ['name = 1', 'name'],
      ["NAME = 'x' OR continent = 'Europe'", 'continent'],
      ['pop_est + gdp_md > 3', 'gdp_md'],
      ['missing IS NULL', 'missing'],
      ["T_BEFORE(founded, DATE('2000-01-01'))", 'founded'],
      ["A_CONTAINS(tags, ('a'))", 'tags'],
      ['CASEI(region) = CASEI(NAME)', 'region'],
      ["INTERVAL(opened, '..') IS NULL", 'opened'],
    ] as const) {
      const error = refusal(text, KNOWN);
      expect(error, text).to.be.instanceOf(UnknownQueryableError);
      expect(error!.property, text).to.equal(name);
      expect(error!.status).to.equal(400);
      expect(error!.code).to.equal('INVALID_FILTER');
      expect(error!.message, text).to.contain(`"${name}"`);
    }
  });

  it('accepts any property without a set (filters built inside the catalogue, CSW, OpenSearch)', () => {
    expect(() => check('continent = 1 AND whatever IS NULL')).to.not.throw();
  });

  it('forgets the set after each check, also after a refusal', () => {
    expect(refusal('nope = 1', new Set())).to.be.instanceOf(UnknownQueryableError);
    expect(() => check('nope = 1')).to.not.throw();
  });

  it('resolves a known property as the record’s own (no static type)', () => {
    const filter = check('pop_est > 3', KNOWN) as unknown as { args: { type?: string }[] };
    expect(filter.args[0]!.type).to.equal('unknown');
  });
});

describe('learned property types of an index document', () => {
  it('lists the record’s own properties with their JSON types, never core ones or nulls', () => {
    const record = {
      ...buildEmptyRecord('r1', { format: 'ogc-record', mediaType: 'x', content: '' }),
      extra: {
        NAME: 'France',
        pop_est: 67_000_000,
        landlocked: false,
        'eo:bands': ['red', 'nir'],
        ratios: [1, 2],
        nothing: null,
        nested: { a: 1 },
        title: 'shadowed',
      },
    };
    const own = new Map(ownPropertyTypes(buildIndexDocument(record).properties));
    expect(Object.fromEntries(own)).to.deep.equal({
      NAME: 'string',
      pop_est: 'number',
      landlocked: 'boolean',
      'eo:bands': 'array',
      ratios: 'array',
    });
  });
});

describe('known queryables of the API (read cache, read again on a miss)', () => {
  /** A backend whose learned properties the test sets, counting the reads. */
  function store(initial: string[]) {
    const state = { names: initial, reads: 0 };
    const backend = {
      learnedProperties: async (): Promise<LearnedProperty[]> => {
        state.reads += 1;
        return state.names.map((name) => ({ name, types: ['string'], sortable: true }));
      },
    };
    return { state, known: new KnownQueryables(backend) };
  }
  const parse = (text: string) => (names: ReadonlySet<string>) => check(text, names);

  it('reads once, then answers known names from the cache', async () => {
    const { state, known } = store(['NAME']);
    await known.parse(parse("NAME = 'a'"));
    await known.parse(parse("NAME = 'b'"));
    await known.parse(parse("title = 'c'"));
    expect(state.reads).to.equal(1);
  });

  it('reads again when a filter names a property the cache lacks, and accepts it once written', async () => {
    const { state, known } = store(['NAME']);
    await known.parse(parse("NAME = 'a'"));
    state.names = ['NAME', 'continent'];
    await known.parse(parse("continent = 'Europe'"));
    expect(state.reads).to.equal(2);
  });

  it('refuses a property the store does not have either, after one read', async () => {
    const { state, known } = store(['NAME']);
    await known.parse(parse("NAME = 'a'"));
    let error: unknown;
    try {
      await known.parse(parse('nope = 1'));
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(UnknownQueryableError);
    expect(state.reads).to.equal(2);
  });

  it('shares one read among the requests that miss together', async () => {
    const { state, known } = store(['NAME']);
    await known.parse(parse("NAME = 'a'"));
    state.names = ['NAME', 'x'];
    await Promise.all(Array.from({ length: 5 }, () => known.parse(parse('x = 1'))));
    expect(state.reads).to.equal(2);
  });

  it('gives sortby the sortable names, and reads again for one the cache lacks', async () => {
    const { state, known } = store(['NAME']);
    const sort = (value: string) => (_names: ReadonlySet<string>, sortable: ReadonlySet<string>) =>
      parseSortby(value, 'sortby', sortable);
    expect(await known.parse(sort('-NAME'))).to.deep.equal([{ field: 'NAME', direction: 'desc' }]);
    state.names = ['NAME', 'pop_est'];
    expect(await known.parse(sort('pop_est'))).to.deep.equal([
      { field: 'pop_est', direction: 'asc' },
    ]);
    expect(state.reads).to.equal(2);
    let error: unknown;
    try {
      await known.parse(sort('nope'));
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(UnsortablePropertyError);
    expect((error as Error).message).to.include('"nope"');
    expect(state.reads).to.equal(3);
  });

  it('reads the store for the documents every time (fresh)', async () => {
    const { state, known } = store(['a']);
    await known.fresh();
    state.names = ['a', 'b'];
    const { properties } = await known.fresh();
    expect(properties.map((property) => property.name)).to.deep.equal(['a', 'b']);
    expect(state.reads).to.equal(2);
  });
});
