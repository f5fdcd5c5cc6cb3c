import { expect } from 'chai';
import { FilterError } from '../../../shared/errors/index.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { operator, propertyRef } from '../../../shared/query/filter-ast.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import type { Expression } from '../../../shared/query/filter-ast.js';
import {
  compileFilterDsl as translate,
  likeToWildcard,
  type FilterContext,
} from '../../../shared/search/engine/compile-filter.js';
import type { Query } from '../../../shared/search/engine/dsl.js';
import { caseInsensitively } from '../../../shared/search/engine/case-insensitive.js';
import type { FieldKind } from '../../../shared/search/engine/engine-fields.js';
import type { SpatialMode } from '../../../shared/search/engine/index-templates.js';
import { defined } from '../../support/defined.js';

const MAPPED: Record<string, FieldKind> = {
  'props.score': 'number',
  'props.tags': 'string',
  'props.flag': 'string',
};

function context(spatial: SpatialMode = 'envelope'): FilterContext {
  return {
    spatial,
    engineName: 'OpenSearch',
    mappedKind: (path) => MAPPED[path] ?? 'absent',
  };
}

/** The checker, then the engine translation, as a search runs them. */
const compileFilterDsl = (filter: Expression, filterContext: FilterContext): Query =>
  translate(checkFilter(filter), filterContext);

const compile = (text: string, spatial: SpatialMode = 'envelope'): Query =>
  compileFilterDsl(parseCql2Text(text), context(spatial));

const fails = (text: string, pattern: RegExp, spatial: SpatialMode = 'envelope'): void => {
  expect(() => compile(text, spatial)).to.throw(FilterError, pattern);
};

const exists = (field: string): Query => ({ exists: { field } });
const term = (field: string, value: unknown): Query => ({ term: { [field]: value } });
const all = (...filter: Query[]): Query => ({ bool: { filter } });
const any = (...should: Query[]): Query => ({ bool: { should, minimum_should_match: 1 } });
const not = (query: Query): Query => ({ bool: { must_not: [query] } });
/** A property is present when its own field has a value or `has` names it (an empty array). */
const present = (path: string, name: string): Query => any(exists(path), term('has', name));

describe('engine DSL: filter compiler', () => {
  describe('comparisons', () => {
    it('= on a keyword is a term, guarded by the property existing', () => {
      expect(compile("type = 'dataset'")).to.deep.equal(
        all(exists('props.type'), term('props.type', 'dataset')),
      );
    });

    it('text properties compare on, and test presence on, their keyword sub-field', () => {
      expect(compile("title = 'A'")).to.deep.equal(
        all(exists('props.title.keyword'), term('props.title.keyword', 'A')),
      );
    });

    it('<> excludes records lacking the property', () => {
      expect(compile("type <> 'dataset'")).to.deep.equal(
        all(exists('props.type'), not(term('props.type', 'dataset'))),
      );
    });

    it('<, <=, >, >= are ranges; a literal on the left flips the operator', () => {
      expect(compile('cloudCover < 10')).to.deep.equal(
        all(exists('props.cloudCover'), { range: { 'props.cloudCover': { lt: 10 } } }),
      );
      expect(compile('cloudCover <= 10')).to.deep.equal(
        all(exists('props.cloudCover'), { range: { 'props.cloudCover': { lte: 10 } } }),
      );
      expect(compile('10 > cloudCover')).to.deep.equal(compile('cloudCover < 10'));
      expect(compile('10 <= cloudCover')).to.deep.equal(compile('cloudCover >= 10'));
    });

    it('time values compare as the spans they stand for (a date is its whole day)', () => {
      expect(compile("updated = DATE('2022-04-16')")).to.deep.equal(
        all(exists('props.updated'), {
          range: {
            'props.updated': { gte: '2022-04-16T00:00:00.000Z', lte: '2022-04-16T23:59:59.999Z' },
          },
        }),
      );
      expect(compile("updated > DATE('2022-04-16')")).to.deep.equal(
        all(exists('props.updated'), {
          range: { 'props.updated': { gt: '2022-04-16T23:59:59.999Z' } },
        }),
      );
      expect(compile("updated = TIMESTAMP('2022-04-16T10:00:00Z')")).to.deep.equal(
        all(exists('props.updated'), term('props.updated', '2022-04-16T10:00:00.000Z')),
      );
      expect(compile("start_datetime < TIMESTAMP('2022-04-16T10:00:00Z')")).to.deep.equal(
        all(exists('time.start'), { range: { 'time.start': { lt: '2022-04-16T10:00:00.000Z' } } }),
      );
    });

    it('a dynamic property compares only with values of its mapped kind', () => {
      expect(compile('score > 5')).to.deep.equal(
        all(exists('props.score'), { range: { 'props.score': { gt: 5 } } }),
      );
      // A number property against a string: unknown (never TRUE, and NOT of it neither).
      expect(compile("score = 'five'")).to.deep.equal({ match_none: {} });
      expect(compile("NOT (score = 'five')")).to.deep.equal({ match_none: {} });
      // A property no record has: unknown.
      expect(compile("nothing = 'x'")).to.deep.equal({ match_none: {} });
      expect(compile("NOT (nothing = 'x')")).to.deep.equal({ match_none: {} });
    });

    it('refuses mismatched types of registered queryables, like the SQLite compiler', () => {
      fails("cloudCover = 'high'", /Cannot compare/);
      fails('title = 3', /Cannot compare/);
      fails('keywords = 3', /is an array/);
      fails("geometry = 'x'", /is a geometry/);
    });

    it('folds comparisons between literals', () => {
      expect(compile('1 = 1')).to.deep.equal({ match_all: {} });
      expect(compile("'a' > 'b'")).to.deep.equal({ match_none: {} });
      expect(compile('2 + 3 = 5')).to.deep.equal({ match_all: {} });
      expect(compile("DATE('2020-01-01') < TIMESTAMP('2020-01-02T00:00:00Z')")).to.deep.equal({
        match_all: {},
      });
    });

    it('refuses comparisons that need engine scripts, naming the backend', () => {
      fails(
        'cloudCover > snowCover',
        /OpenSearch backend does not support comparing two properties/,
      );
      fails('cloudCover + 1 > 2', /does not support arithmetic on properties/);
      fails("like_me(title) = 'x'", /Unknown function "like_me"/);
    });
  });

  describe('three-valued logic', () => {
    it('NOT of a comparison selects only records that have the property', () => {
      expect(compile('NOT (cloudCover = 1)')).to.deep.equal(
        all(exists('props.cloudCover'), not(term('props.cloudCover', 1))),
      );
    });

    it('AND and OR swap under NOT (De Morgan), keeping unknowns out', () => {
      expect(compile("NOT (type = 'a' AND platform = 'b')")).to.deep.equal(
        any(
          all(exists('props.type'), not(term('props.type', 'a'))),
          all(exists('props.platform'), not(term('props.platform', 'b'))),
        ),
      );
      expect(compile("NOT (type = 'a' OR platform = 'b')")).to.deep.equal(
        all(
          exists('props.type'),
          not(term('props.type', 'a')),
          exists('props.platform'),
          not(term('props.platform', 'b')),
        ),
      );
    });

    it('double negation is the predicate itself', () => {
      expect(compile("NOT (NOT (type = 'a'))")).to.deep.equal(compile("type = 'a'"));
    });

    it('boolean literals and empty IN lists are constants, not unknowns', () => {
      expect(compile('true')).to.deep.equal({ match_all: {} });
      expect(compile('NOT true')).to.deep.equal({ match_none: {} });
    });
  });

  describe('LIKE, BETWEEN, IN, IS NULL', () => {
    it('LIKE is a case-sensitive wildcard with CQL2 escapes translated', () => {
      expect(likeToWildcard('a%b_c')).to.equal('a*b?c');
      expect(likeToWildcard('100\\%')).to.equal('100%');
      expect(likeToWildcard('\\_x')).to.equal('_x');
      expect(likeToWildcard('what?*\\\\')).to.equal('what\\?\\*\\\\');
      expect(compile("title LIKE 'Gla%'")).to.deep.equal(
        all(exists('props.title.keyword'), {
          wildcard: { 'props.title.keyword': { value: 'Gla*' } },
        }),
      );
    });

    it('LIKE refuses non-strings and computed patterns', () => {
      fails("cloudCover LIKE '1%'", /LIKE needs strings/);
      expect(() =>
        compileFilterDsl(
          operator('like', propertyRef('title'), propertyRef('description')),
          context(),
        ),
      ).to.throw(FilterError, /does not support LIKE with a computed pattern/);
    });

    it('BETWEEN is an inclusive range', () => {
      expect(compile('cloudCover BETWEEN 1 AND 5')).to.deep.equal(
        all(
          exists('props.cloudCover'),
          { range: { 'props.cloudCover': { gte: 1 } } },
          { range: { 'props.cloudCover': { lte: 5 } } },
        ),
      );
    });

    it('IN is a terms clause; NOT IN keeps records lacking the property out', () => {
      expect(compile("type IN ('a', 'b')")).to.deep.equal(
        all(exists('props.type'), { terms: { 'props.type': ['a', 'b'] } }),
      );
      expect(compile("NOT (type IN ('a', 'b'))")).to.deep.equal(
        all(exists('props.type'), not({ terms: { 'props.type': ['a', 'b'] } })),
      );
    });

    it('IS NULL: neither a value in the field nor the name in `has` (empty arrays are present)', () => {
      expect(compile('platform IS NULL')).to.deep.equal(not(present('props.platform', 'platform')));
      expect(compile('platform IS NOT NULL')).to.deep.equal(present('props.platform', 'platform'));
      expect(compile('keywords IS NULL')).to.deep.equal(
        not(present('props.keywords.keyword', 'keywords')),
      );
      expect(compile('start_datetime IS NULL')).to.deep.equal(
        not(present('time.start', 'start_datetime')),
      );
      expect(compile('geometry IS NULL')).to.deep.equal(not(exists('box0.minx')));
      // The box fields tell it in both modes (a geometry the engine dropped leaves them set).
      expect(compile('geometry IS NULL', 'shape')).to.deep.equal(not(exists('box0.minx')));
    });
  });

  describe('CASEI and ACCENTI', () => {
    const view = (copy: string, raw: string, build: (field: string) => Query): Query =>
      any(build(copy), all(not(exists(copy)), build(raw)));
    // Plain-ASCII values have no CASEI copy: they are matched ignoring ASCII case.
    const insensitive = (query: Query): Query => caseInsensitively(query);
    // CASEI(ACCENTI(x)): the cai copy, else the ci copy, else the raw value.
    const caiView = (field: string, raw: string, build: (path: string) => Query): Query =>
      any(
        build(`cai.${field}`),
        all(not(exists(`cai.${field}`)), build(`ci.${field}`)),
        all(not(exists(`cai.${field}`)), not(exists(`ci.${field}`)), insensitive(build(raw))),
      );

    it('compare the folded copy, falling back to the raw value where folding changed nothing', () => {
      expect(compile("CASEI(title) = casei('ÉTÉ')")).to.deep.equal(
        all(
          exists('props.title.keyword'),
          any(
            term('ci.title', 'été'),
            all(not(exists('ci.title')), {
              term: { 'props.title.keyword': { value: 'été', case_insensitive: true } },
            }),
          ),
        ),
      );
      expect(compile("ACCENTI(title) = accenti('Été')")).to.deep.equal(
        all(
          exists('props.title.keyword'),
          view('ai.title', 'props.title.keyword', (f) => term(f, 'Ete')),
        ),
      );
      expect(compile("CASEI(ACCENTI(title)) = 'ete'")).to.deep.equal(
        all(
          exists('props.title.keyword'),
          caiView('title', 'props.title.keyword', (f) => term(f, 'ete')),
        ),
      );
      expect(compile("ACCENTI(CASEI(title)) LIKE 'et%'")).to.deep.equal(
        all(
          exists('props.title.keyword'),
          caiView('title', 'props.title.keyword', (f) => ({
            wildcard: { [f]: { value: 'et*' } },
          })),
        ),
      );
    });

    it('CASEI on the raw value: lists, patterns and ordering ignore ASCII case', () => {
      const raw = 'props.title.keyword';
      const onRaw = (query: Query): Query => all(not(exists('ci.title')), query);
      expect(compile("CASEI(title) IN ('a', 'b')")).to.deep.equal(
        all(
          exists(raw),
          any(
            { terms: { 'ci.title': ['a', 'b'] } },
            onRaw(
              any(
                ...['a', 'b'].map((v) => ({
                  term: { [raw]: { value: v, case_insensitive: true } },
                })),
              ),
            ),
          ),
        ),
      );
      expect(compile("CASEI(title) LIKE 'gl%'")).to.deep.equal(
        all(
          exists(raw),
          any(
            { wildcard: { 'ci.title': { value: 'gl*' } } },
            onRaw({ wildcard: { [raw]: { value: 'gl*', case_insensitive: true } } }),
          ),
        ),
      );
      const ordered = compile("CASEI(title) < 'b'");
      expect(ordered).to.have.nested.property('bool.filter[1].bool.should[0].range');
      expect(JSON.stringify(ordered)).to.contain('"regexp"');
    });

    it('refuse non-strings', () => {
      fails('CASEI(cloudCover) = 1', /CASEI needs a string/);
    });
  });

  describe('spatial operators', () => {
    const envelopeIntersects = (part: number, [w, s, e, n]: number[]): Query =>
      all(
        { range: { [`box${part}.minx`]: { lte: e } } },
        { range: { [`box${part}.maxx`]: { gte: w } } },
        { range: { [`box${part}.miny`]: { lte: n } } },
        { range: { [`box${part}.maxy`]: { gte: s } } },
      );

    /** The shape-mode clause: geo_shape where the engine indexed a footprint that is no box. */
    const geoShape = (shape: unknown, relation: string): Query => ({
      geo_shape: { geometry: { shape, relation } },
    });
    const json = (query: Query): string => JSON.stringify(query);

    it('shape mode: geo_shape relations, dropped geometries on their boxes, box footprints too but for intersects and disjoint', () => {
      const shape = {
        type: 'envelope',
        coordinates: [
          [0, 10],
          [10, 0],
        ],
      };
      for (const relation of ['intersects', 'within', 'contains', 'disjoint']) {
        const query = json(
          compile(`S_${relation.toUpperCase()}(geometry, BBOX(0, 0, 10, 10))`, 'shape'),
        );
        expect(query).to.contain(json(geoShape(shape, relation)));
        // Intersects and disjoint relate box footprints with geo_shape (the band around the
        // box's edges is in doubt: spatial-doubt.test.ts); within and contains use their boxes.
        const onBoxes = relation === 'within' || relation === 'contains';
        expect(query.includes(json({ term: { boxFootprint: true } })), relation).to.equal(onBoxes);
        expect(query).to.contain(json({ term: { _ignored: 'geometry' } }));
      }
      expect(json(compile('S_WITHIN(BBOX(0, 0, 10, 10), geometry)', 'shape'))).to.contain(
        json(geoShape(shape, 'contains')),
      );
      // A polygon is no box: every indexed footprint is related by geo_shape.
      const polygon = compile('S_INTERSECTS(geometry, POLYGON((0 0, 4 0, 0 3, 0 0)))', 'shape');
      expect(json(polygon)).to.contain('"geo_shape"');
      expect(json(polygon)).not.to.contain('boxFootprint');
    });

    it('collects the documents whose relation the engine cannot prove', () => {
      const doubts: NonNullable<FilterContext['doubts']> = [];
      const withDoubts = (text: string, spatial: SpatialMode): void => {
        compileFilterDsl(parseCql2Text(text), { ...context(spatial), doubts });
      };
      withDoubts('S_INTERSECTS(geometry, POLYGON((0 0, 4 0, 0 3, 0 0)))', 'envelope');
      expect(doubts.map((doubt) => doubt.operator)).to.deep.equal(['S_INTERSECTS']);
      // Envelope mode, polygon operand: every footprint whose box meets the polygon's.
      expect(json(defined(doubts[0], 'the first doubt').query)).to.contain(
        json({ range: { 'box0.minx': { lte: 4 } } }),
      );
      withDoubts('S_WITHIN(geometry, BBOX(0, 0, 10, 10))', 'shape');
      // Shape mode, box operand: dropped geometries, and footprints on the box edges.
      expect(json(defined(doubts[1], 'the second doubt').query)).to.contain(
        json({ term: { _ignored: 'geometry' } }),
      );
      expect(json(defined(doubts[1], 'the second doubt').query)).to.contain(
        json({ range: { 'box0.minx': { gte: 0 - 1e-6 } } }),
      );
    });

    it('envelope mode: relations on the record box halves, antimeridian boxes split', () => {
      expect(compile('S_INTERSECTS(geometry, BBOX(0, 0, 10, 10))')).to.deep.equal(
        all(
          exists('box0.minx'),
          any(envelopeIntersects(0, [0, 0, 10, 10]), envelopeIntersects(1, [0, 0, 10, 10])),
        ),
      );
      expect(compile('S_INTERSECTS(geometry, BBOX(170, 0, -170, 10))')).to.deep.equal(
        all(
          exists('box0.minx'),
          any(
            envelopeIntersects(0, [170, 0, 180, 10]),
            envelopeIntersects(0, [-180, 0, -170, 10]),
            envelopeIntersects(1, [170, 0, 180, 10]),
            envelopeIntersects(1, [-180, 0, -170, 10]),
          ),
        ),
      );
      expect(compile('S_DISJOINT(geometry, BBOX(0, 0, 10, 10))')).to.deep.equal(
        all(
          exists('box0.minx'),
          not(any(envelopeIntersects(0, [0, 0, 10, 10]), envelopeIntersects(1, [0, 0, 10, 10]))),
        ),
      );
    });

    it('NOT of a spatial relation needs a footprint', () => {
      const query = compile('NOT S_INTERSECTS(geometry, BBOX(0, 0, 10, 10))', 'shape') as {
        bool: { filter: Query[] };
      };
      // Defined where the engine indexed the geometry, or dropped it but has the box.
      expect(query.bool.filter[0]).to.deep.equal(
        any(exists('geometry'), all({ term: { _ignored: 'geometry' } }, exists('box0.minx'))),
      );
      expect(json(defined(query.bool.filter[1], 'the second filter'))).to.match(
        /^\{"bool":\{"must_not"/,
      );
    });

    it('refuses relations the engines lack, and invalid geometries', () => {
      fails('S_TOUCHES(geometry, BBOX(0, 0, 1, 1))', /does not support S_TOUCHES/, 'shape');
      fails(
        'S_OVERLAPS(geometry, BBOX(0, 0, 1, 1))',
        /does not support S_OVERLAPS in spatial mode "shape"/,
        'shape',
      );
      // Equality is on the boxes in shape mode too (proven only for box footprints).
      expect(JSON.stringify(compile('S_EQUALS(geometry, BBOX(0, 0, 1, 1))', 'shape'))).to.contain(
        '"bbox.west"',
      );
      expect(JSON.stringify(compile('S_EQUALS(geometry, BBOX(0, 0, 1, 1))'))).to.contain(
        'bbox.west',
      );
      fails('S_CROSSES(geometry, BBOX(0, 0, 1, 1))', /does not support S_CROSSES/);
      fails('S_INTERSECTS(geometry, BBOX(0, 0, 200, 1))', /outside CRS84/);
      fails('S_INTERSECTS(title, BBOX(0, 0, 1, 1))', /not a spatial property/);
      fails('S_INTERSECTS(geometry, geometry)', /two record geometries/);
    });

    it('refuses the FES distance operators', () => {
      expect(() =>
        compileFilterDsl(
          operator(
            's_dwithin',
            propertyRef('geometry'),
            { kind: 'geometry', geometry: { type: 'Point', coordinates: [1, 2] } },
            { kind: 'literal', value: 1000 },
            { kind: 'literal', value: 'm' },
          ),
          context('shape'),
        ),
      ).to.throw(FilterError, /does not support distance operators/);
    });

    it('evaluates relations between two literals in Node', () => {
      expect(compile('S_INTERSECTS(BBOX(0, 0, 2, 2), POINT(1 1))')).to.deep.equal({
        match_all: {},
      });
      expect(compile('S_WITHIN(POINT(5 5), BBOX(0, 0, 2, 2))')).to.deep.equal({ match_none: {} });
    });
  });

  describe('temporal operators', () => {
    const hasTime = exists('time.range');
    const open = (field: string): Query => all(hasTime, not(exists(field)));

    it('the record interval (datetime) has open ends where a bound is missing', () => {
      // An open end is after every instant: never before one.
      expect(compile("T_BEFORE(datetime, TIMESTAMP('2020-01-01T00:00:00Z'))")).to.deep.equal(
        all(hasTime, { range: { 'time.end': { lt: '2020-01-01T00:00:00.000Z' } } }),
      );
      expect(compile("T_AFTER(datetime, TIMESTAMP('2020-01-01T00:00:00Z'))")).to.deep.equal(
        all(hasTime, { range: { 'time.start': { gt: '2020-01-01T00:00:00.000Z' } } }),
      );
    });

    it('T_INTERSECTS compares both ends; an open end counts as unbounded', () => {
      expect(compile("T_INTERSECTS(datetime, INTERVAL('2020-01-01', '2020-12-31'))")).to.deep.equal(
        all(
          hasTime,
          any({ range: { 'time.start': { lte: '2020-12-31T23:59:59.999Z' } } }, open('time.start')),
          any({ range: { 'time.end': { gte: '2020-01-01T00:00:00.000Z' } } }, open('time.end')),
        ),
      );
    });

    it('an open interval end in the literal compares with every instant alike', () => {
      expect(compile("T_INTERSECTS(datetime, INTERVAL('2020-01-01', '..'))")).to.deep.equal(
        all(
          hasTime,
          any({ range: { 'time.end': { gte: '2020-01-01T00:00:00.000Z' } } }, open('time.end')),
        ),
      );
      expect(compile("T_INTERSECTS(datetime, INTERVAL('..', '..'))")).to.deep.equal(hasTime);
      expect(compile("NOT T_INTERSECTS(datetime, INTERVAL('..', '..'))")).to.deep.equal({
        match_none: {},
      });
    });

    it('instants of other properties are unknown when missing', () => {
      expect(compile("T_EQUALS(updated, TIMESTAMP('2024-01-01T00:00:00Z'))")).to.deep.equal(
        all(exists('props.updated'), term('props.updated', '2024-01-01T00:00:00.000Z')),
      );
      expect(compile("NOT T_EQUALS(updated, TIMESTAMP('2024-01-01T00:00:00Z'))")).to.deep.equal(
        all(exists('props.updated'), not(term('props.updated', '2024-01-01T00:00:00.000Z'))),
      );
    });

    it('covers every relation (checked on constants) and refuses instants where intervals are needed', () => {
      const relations: Record<string, boolean> = {
        T_BEFORE: false,
        T_AFTER: false,
        T_MEETS: false,
        T_METBY: false,
        T_OVERLAPS: true,
        T_OVERLAPPEDBY: false,
        T_STARTS: false,
        T_STARTEDBY: false,
        T_DURING: false,
        T_CONTAINS: false,
        T_FINISHES: false,
        T_FINISHEDBY: false,
        T_EQUALS: false,
        T_DISJOINT: false,
        T_INTERSECTS: true,
      };
      for (const [op, expected] of Object.entries(relations)) {
        const text = `${op}(INTERVAL('2020-01-01', '2020-06-30'), INTERVAL('2020-03-01', '2020-12-31'))`;
        expect(compile(text), op).to.deep.equal(expected ? { match_all: {} } : { match_none: {} });
      }
      fails("T_DURING(updated, INTERVAL('2020-01-01', '2020-12-31'))", /compares intervals/);
      fails(
        'T_INTERSECTS(INTERVAL(start_datetime, end_datetime), INTERVAL(created, updated))',
        /temporal operators between two properties/,
      );
    });
  });

  describe('array operators', () => {
    it('A_OVERLAPS is terms, A_CONTAINS a term per item', () => {
      expect(compile("A_OVERLAPS(keywords, ('a', 'b'))")).to.deep.equal(
        all(present('props.keywords.keyword', 'keywords'), {
          terms: { 'props.keywords.keyword': ['a', 'b'] },
        }),
      );
      expect(compile("A_CONTAINS(keywords, ('a', 'b'))")).to.deep.equal(
        all(
          present('props.keywords.keyword', 'keywords'),
          term('props.keywords.keyword', 'a'),
          term('props.keywords.keyword', 'b'),
        ),
      );
    });

    it('A_CONTAINEDBY excludes records with a value between or outside the items', () => {
      expect(compile("A_CONTAINEDBY(tags, ('b', 'a'))")).to.deep.equal(
        all(
          present('props.tags', 'tags'),
          not(
            any(
              { range: { 'props.tags': { lt: 'a' } } },
              { range: { 'props.tags': { gt: 'a', lt: 'b' } } },
              { range: { 'props.tags': { gt: 'b' } } },
            ),
          ),
        ),
      );
    });

    it('A_EQUALS is set equality; a literal first turns the relation around', () => {
      expect(compile("A_EQUALS(tags, ('a'))")).to.deep.equal(
        all(
          present('props.tags', 'tags'),
          term('props.tags', 'a'),
          not(
            any({ range: { 'props.tags': { lt: 'a' } } }, { range: { 'props.tags': { gt: 'a' } } }),
          ),
        ),
      );
      expect(compile("A_CONTAINS(('a', 'b'), tags)")).to.deep.equal(
        compile("A_CONTAINEDBY(tags, ('a', 'b'))"),
      );
    });

    it('evaluates literal arrays in Node and refuses two properties', () => {
      expect(compile("A_CONTAINS(('a', 'b'), ('a'))")).to.deep.equal({ match_all: {} });
      fails('A_OVERLAPS(keywords, themes)', /array relations between two properties/);
    });
  });
});
