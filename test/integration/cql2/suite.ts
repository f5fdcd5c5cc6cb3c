/**
 * CQL2 on a search backend, against the CQL2 conformance test dataset (countries,
 * populated places, rivers) plus a few records of our own (arrays, record time intervals,
 * non-ASCII text, missing values), loaded into the backend under test.
 *
 * Every case is given in CQL2 text and in hand-written CQL2 JSON, and both must select exactly
 * the features an independent JavaScript predicate over the GeoJSON selects (see cql2/oracle.ts).
 * Where the CQL2 abstract test suite (ATS) gives a count for the same predicate, the independent
 * count must match it too, except for two ATS errata noted below.
 */
import { expect } from 'chai';
import type { Geometry } from 'geojson';
import { FilterError } from '../../../shared/errors/index.js';
import { parseCql2Json, parseCql2Text } from '../../../shared/query/cql2/index.js';
import {
  literal,
  operator,
  propertyRef,
  type Expression,
} from '../../../shared/query/filter-ast.js';
import type { SearchQuery } from '../../../shared/query/search-query.js';
import type { SearchBackend } from '../../../shared/search/backend.js';
import { readAllFeatures, toRecord, type LayerName, type LoadedFeature } from './ne110m.js';
import { compare3, date, intervalJson, op, prop, spatial3 } from './oracle.js';
import { casesOf, ms, str, type Case } from './cases.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { defined } from '../../support/defined.js';

/** How one backend takes part in the suite. */
export interface Cql2SuiteTarget {
  /** Opens an empty, initialised backend (closed by the suite). */
  open(): Promise<SearchBackend>;
  /**
   * Why this backend refuses a case (by `<layer>: <CQL2 text>`, or a test's title), or undefined when it
   * must answer exactly. A refused case must fail with a 400 FilterError naming the backend.
   */
  refuses?(text: string): string | undefined;
  /** The backend's name in refusal messages (e.g. "Elasticsearch"). */
  backendName?: string;
}

/**
 * Registers the whole suite for one backend: every case in CQL2 text and JSON must select exactly
 * the features the independent predicate selects (or, where `refuses` says so, be refused).
 */
export function describeCql2Suite(label: string, target: Cql2SuiteTarget): void {
  describe(`CQL2 filters on ${label}, against the CQL2 test dataset`, function () {
    this.timeout(120_000);
    let backend: SearchBackend;
    let features: LoadedFeature[];

    before(async function () {
      this.timeout(300_000);
      features = readAllFeatures();
      const byLayer = new Map<string, Set<string>>();
      for (const feature of features) {
        const ids = byLayer.get(feature.layer) ?? new Set<string>();
        ids.add(feature.recordId);
        byLayer.set(feature.layer, ids);
      }
      // Feature ids restart at 1 in every layer; the record ids must not collide.
      expect(new Set(features.map((feature) => feature.recordId)).size).to.equal(features.length);
      backend = await target.open();
      const result = await backend.upsert(features.map(toRecord));
      expect(result.failures).to.deep.equal([]);
      expect(result.written).to.equal(features.length);
      expect(byLayer.get('countries')?.size).to.equal(177);
      expect(byLayer.get('places')?.size).to.equal(243);
      expect(byLayer.get('rivers')?.size).to.equal(13);
    });

    after(async () => {
      await backend?.close();
    });

    async function search(layer: LayerName, refinement: Partial<SearchQuery>): Promise<string[]> {
      const result = await backend.search({
        sort: [],
        offset: 0,
        limit: 1000,
        collections: [layer],
        ...refinement,
      });
      expect(result.total).to.equal(result.records.length);
      return result.records.map((record) => record.id).sort();
    }

    const selected = async (layer: LayerName, filter: Expression) =>
      search(layer, { filter: checkFilter(filter) });

    function expectedIds(layer: LayerName, oracle: Case['oracle']): string[] {
      return features
        .filter(
          (feature) => feature.layer === layer && oracle(feature.properties, feature) === true,
        )
        .map((feature) => feature.recordId)
        .sort();
    }

    function runCases(cases: readonly Case[]): void {
      for (const item of cases) {
        const refusal = target.refuses?.(`${item.layer}: ${item.text}`);
        if (refusal !== undefined) {
          it(`${item.layer}: ${item.text} (refused: ${refusal})`, async () => {
            await expectRefusal(item.layer, parseCql2Text(item.text));
            await expectRefusal(item.layer, parseCql2Json(item.json));
          });
          continue;
        }
        it(`${item.layer}: ${item.text}`, async () => {
          const expected = expectedIds(item.layer, item.oracle);
          if (item.ats !== undefined) {
            expect(expected.length, 'independent count against the ATS').to.equal(item.ats);
          }
          expect(await selected(item.layer, parseCql2Text(item.text)), 'CQL2 text').to.deep.equal(
            expected,
          );
          expect(await selected(item.layer, parseCql2Json(item.json)), 'CQL2 JSON').to.deep.equal(
            expected,
          );
        });
      }
    }

    /**
     * A test of an exact answer, or, where the backend refuses it (listed by title), a test that
     * the same steps fail with a 400 FilterError naming the backend.
     */
    function exact(title: string, body: () => Promise<void>): void {
      const refusal = target.refuses?.(title);
      if (refusal === undefined) {
        it(title, body);
        return;
      }
      it(`${title} (refused: ${refusal})`, async () => {
        const caught = await body().then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(caught, 'a FilterError').to.be.instanceOf(FilterError);
        expect((caught as FilterError).status).to.equal(400);
        if (target.backendName) {
          expect((caught as FilterError).message).to.include(target.backendName);
        }
      });
    }

    /** The backend refuses the filter with a 400 naming itself. */
    async function expectRefusal(layer: LayerName, filter: Expression): Promise<void> {
      const caught = await selected(layer, filter).catch((error: unknown) => error);
      expect(caught, 'a FilterError').to.be.instanceOf(FilterError);
      expect((caught as FilterError).status).to.equal(400);
      if (target.backendName) {
        expect((caught as FilterError).message).to.include(target.backendName);
      }
    }

    async function expectFilterError(filter: () => Expression, pattern: RegExp): Promise<void> {
      let caught: unknown;
      try {
        await selected('places', filter());
      } catch (error) {
        caught = error;
      }
      expect(caught, 'a FilterError').to.be.instanceOf(FilterError);
      expect((caught as FilterError).status).to.equal(400);
      expect((caught as FilterError).message).to.match(pattern);
    }

    // -------------------------------------------------------------------------------------------
    describe('basic-cql2', () => {
      runCases(casesOf('basic-cql2'));

      describe('logical combinations from the ATS: (NOT (p2) AND p1) OR (p3 AND p4) OR NOT (p1 OR p4)', () => {
        runCases(
          casesOf(
            'logical combinations from the ATS: (NOT (p2) AND p1) OR (p3 AND p4) OR NOT (p1 OR p4)',
          ),
        );
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('three-valued logic: missing or mistyped values are NULL, only TRUE selects', () => {
      runCases(
        casesOf('three-valued logic: missing or mistyped values are NULL, only TRUE selects'),
      );
    });

    // -------------------------------------------------------------------------------------------
    describe('advanced-comparison-operators', () => {
      runCases(casesOf('advanced-comparison-operators'));
    });

    // -------------------------------------------------------------------------------------------
    describe('case-insensitive-comparison', () => {
      runCases(casesOf('case-insensitive-comparison'));
    });

    // -------------------------------------------------------------------------------------------
    describe('accent-insensitive-comparison', () => {
      runCases(casesOf('accent-insensitive-comparison'));
    });

    // -------------------------------------------------------------------------------------------
    describe('basic-spatial-functions', () => {
      runCases(casesOf('basic-spatial-functions'));
    });

    // -------------------------------------------------------------------------------------------
    describe('basic-spatial-functions-plus', () => {
      runCases(casesOf('basic-spatial-functions-plus'));

      exact(
        'answers SearchQuery.spatial.geometry (STAC intersects) with the same predicates',
        async () => {
          const triangle: Geometry = {
            type: 'Polygon',
            coordinates: [
              [
                [0, 40],
                [20, 40],
                [10, 55],
                [0, 40],
              ],
            ],
          };
          for (const relation of ['intersects', 'within', 'disjoint'] as const) {
            const expected = features
              .filter(
                (f) => f.layer === 'countries' && spatial3(relation, f.geometry, triangle) === true,
              )
              .map((f) => f.recordId)
              .sort();
            expect(expected.length).to.be.greaterThan(0);
            expect(
              await search('countries', { spatial: { geometry: triangle, relation } }),
              relation,
            ).to.deep.equal(expected);
          }
        },
      );
    });

    // -------------------------------------------------------------------------------------------
    describe('spatial-functions', () => {
      runCases(casesOf('spatial-functions'));
    });

    // -------------------------------------------------------------------------------------------
    describe('temporal-functions', () => {
      runCases(casesOf('temporal-functions'));

      const day = '2022-04-16';

      it('refuses an instant in an operator defined on intervals only', async () => {
        await expectFilterError(
          () => parseCql2Text("T_DURING(start, INTERVAL('2022-01-01','2022-12-31'))"),
          /T_DURING compares intervals, but start is an instant/,
        );
        await expectFilterError(
          () =>
            parseCql2Json(
              op('t_starts', intervalJson(prop('start'), prop('end')), date('2022-01-01')),
            ),
          /T_STARTS compares intervals, but DATE\('2022-01-01'\) is an instant/,
        );
      });

      it('compares a date with a timestamp at the coarser granularity (the whole day)', async () => {
        // Every place whose start timestamp falls on 2022-04-16, derived from the data.
        const onDay = expectedIds('places', (p) => (str(p, 'start') ?? '').startsWith(day));
        expect(onDay.length).to.be.greaterThan(1);
        expect(await selected('places', parseCql2Text(`start = DATE('${day}')`))).to.deep.equal(
          onDay,
        );
        const before = expectedIds('places', (p) =>
          compare3(ms(p, 'start'), '<', Date.parse(`${day}T00:00:00Z`)),
        );
        expect(await selected('places', parseCql2Text(`start < DATE('${day}')`))).to.deep.equal(
          before,
        );
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('array-functions', () => {
      runCases(casesOf('array-functions'));
    });

    // -------------------------------------------------------------------------------------------
    describe('property-property', () => {
      runCases(casesOf('property-property'));
    });

    // -------------------------------------------------------------------------------------------
    describe('arithmetic', () => {
      runCases(casesOf('arithmetic'));
    });

    // -------------------------------------------------------------------------------------------
    describe('distance operators from FES (DWithin, Beyond in metres)', () => {
      /** Great-circle metres between two points, on the mean sphere. */
      const metres = (from: readonly number[], to: readonly number[]): number => {
        const [x1, y1] = [defined(from[0], 'a longitude'), defined(from[1], 'a latitude')];
        const [x2, y2] = [defined(to[0], 'a longitude'), defined(to[1], 'a latitude')];
        const rad = Math.PI / 180;
        const a =
          Math.sin(((y2 - y1) * rad) / 2) ** 2 +
          Math.cos(y1 * rad) * Math.cos(y2 * rad) * Math.sin(((x2 - x1) * rad) / 2) ** 2;
        return 2 * 6_371_008.8 * Math.asin(Math.sqrt(a));
      };
      const placeAt = (feature: LoadedFeature): number[] | null =>
        feature.geometry?.type === 'Point' ? feature.geometry.coordinates : null;
      const distanceFilter = (name: string, x: number, y: number, d: number): Expression =>
        operator(
          name,
          propertyRef('geom'),
          { kind: 'geometry', geometry: { type: 'Point', coordinates: [x, y] } },
          literal(d),
          literal('m'),
        );

      const centres: [x: number, y: number, d: number][] = [
        [7.02, 49.92, 300_000],
        [12.5, 55.7, 1_000_000],
        [179, -17, 2_500_000],
        [0, 89, 4_000_000],
      ];
      for (const [x, y, d] of centres) {
        exact(`selects places within and beyond ${d / 1000} km of (${x} ${y})`, async () => {
          const near = expectedIds('places', (_p, f) =>
            placeAt(f) === null ? null : metres(placeAt(f)!, [x, y]) <= d,
          );
          const far = expectedIds('places', (_p, f) =>
            placeAt(f) === null ? null : metres(placeAt(f)!, [x, y]) > d,
          );
          expect(near.length + far.length).to.equal(243);
          expect(near.length, 'places near').to.be.greaterThan(0);
          expect(await selected('places', distanceFilter('s_dwithin', x, y, d))).to.deep.equal(
            near,
          );
          expect(await selected('places', distanceFilter('s_beyond', x, y, d))).to.deep.equal(far);
          expect(
            await selected('places', operator('not', distanceFilter('s_dwithin', x, y, d))),
          ).to.deep.equal(far);
        });
      }

      it('refuses distances that are not metres', async () => {
        await expectFilterError(
          () =>
            operator(
              's_dwithin',
              propertyRef('geom'),
              { kind: 'geometry', geometry: { type: 'Point', coordinates: [0, 0] } },
              literal(1),
              literal('deg'),
            ),
          /must be in metres/,
        );
      });
    });

    // -------------------------------------------------------------------------------------------
    describe('errors', () => {
      it('names an unknown function', async () => {
        await expectFilterError(() => parseCql2Text('Foo(name) = 1'), /Unknown function "Foo"/);
        await expectFilterError(
          () => parseCql2Json(op('=', op('Buffer', prop('geom'), 10), 1)),
          /Unknown function "Buffer"/,
        );
      });

      it('refuses operands whose registered type does not fit', async () => {
        await expectFilterError(
          () => parseCql2Text("cloudCover = 'low'"),
          /Cannot compare 'low' \(string\) with cloudCover \(number\)/,
        );
        await expectFilterError(() => parseCql2Text('title > 5'), /Cannot compare/);
        await expectFilterError(() => parseCql2Text("updated = 'yesterday'"), /Cannot compare/);
        await expectFilterError(
          () => parseCql2Text('S_INTERSECTS(NAME, BBOX(0,0,1,1))'),
          /S_INTERSECTS needs geometries, but "NAME" is not a spatial property/,
        );
        await expectFilterError(
          () => parseCql2Text("T_AFTER(title, DATE('2020-01-01'))"),
          /Temporal operators need dates/,
        );
        await expectFilterError(() => parseCql2Text("keywords = 'x'"), /is an array/);
        await expectFilterError(() => parseCql2Text("geometry = 'x'"), /is a geometry/);
        // Not writable in CQL2 text or JSON, but other filter languages build the same tree.
        await expectFilterError(
          () => operator('>', operator('+', literal(1), literal('a')), literal(2)),
          /"\+" needs numbers, but 'a' is a string/,
        );
        await expectFilterError(
          () => parseCql2Text('CASEI(pop_other) = 5'),
          /Cannot compare 5 \(number\) with CASEI\(pop_other\) \(string\)/,
        );
        await expectFilterError(
          () => operator('=', operator('casei', literal(1)), operator('casei', literal('x'))),
          /CASEI needs a string, but 1 is a number/,
        );
        await expectFilterError(
          () => operator('like', propertyRef('pop_other'), literal(5)),
          /LIKE needs strings, but 5 is a number/,
        );
        await expectFilterError(
          () => parseCql2Text("A_CONTAINS(geometry, ('a'))"),
          /A_CONTAINS needs arrays, but "geometry" is a geometry/,
        );
      });

      it('refuses invalid spatial and temporal literals', async () => {
        await expectFilterError(
          () => parseCql2Text('S_INTERSECTS(geom,POINT(90 180))'),
          /outside CRS84/,
        );
        await expectFilterError(
          () => parseCql2Text('S_INTERSECTS(geom,BBOX(0,50,10,40))'),
          /south edge above its north edge/,
        );
        await expectFilterError(
          () => parseCql2Text('S_INTERSECTS(geom,POLYGON((0 0,10 10,10 0,0 10,0 0)))'),
          /not a valid geometry/,
        );
        await expectFilterError(
          () => parseCql2Text("T_INTERSECTS(start, INTERVAL('2022-01-01','2021-01-01'))"),
          /starts after it ends/,
        );
      });
    });
  });
}
