/**
 * Harvest-grade paging through CSW: a harvester that follows nextRecord page by page (GET 3.0,
 * POST 2.0.2, with and without a constraint or a sort, at several page sizes) sees every
 * matching record exactly once, in the stable default order (by identifier). On the engines the
 * result window is 100 records, so that most pages lie beyond it: sequential pages continue
 * with search_after from the previous page's sort values, and a jump walks there in strides of
 * sort values — the paths a harvest of a million records takes.
 */
import { expect } from 'chai';
import { generatedDocuments, readDocuments } from '../support/catalogue-app.js';
import { createCatalogueAppOn, suiteBackends, type SuiteBackend } from '../support/csw-backends.js';
import {
  cswGet,
  cswPost,
  getRecords30,
  NS,
  searchResultsOf,
  type SearchResults,
} from '../support/csw-client.js';
import { samplePath } from '../support/fixtures.js';
import { EngineBackend } from '../../shared/search/engine/engine-backend.js';
import type { CheckpointStats } from '../../shared/search/engine/sort-checkpoints.js';
import type { TestApp } from '../support/test-app.js';

const GENERATED = 230;
/** The engines' result window (and the page size limit) in this suite. */
const WINDOW = 100;

/** The engine backend's deep-paging counters, or undefined on SQLite. */
function pagingStats(test: TestApp): Readonly<CheckpointStats> | undefined {
  return test.backend instanceof EngineBackend ? { ...test.backend.pagingStats } : undefined;
}

function describeSuite(backend: SuiteBackend): void {
  describe(`CSW harvesting (paging with nextRecord) on ${backend.label}`, function () {
    this.timeout(120_000);
    let test: TestApp;
    let total: number;
    /** The sample documents loaded (one record each). */
    let samples: number;

    before(async function () {
      samples = [
        ...readDocuments(samplePath('dublin-core-cite')),
        ...readDocuments(samplePath('iso19139')),
      ].length;
      test = await createCatalogueAppOn(
        backend,
        [
          ...readDocuments(samplePath('dublin-core-cite')),
          ...readDocuments(samplePath('iso19139')),
          ...generatedDocuments(GENERATED),
        ],
        { LIMIT_MAX: String(WINDOW) },
        { maxResultWindow: WINDOW },
      );
      total = searchResultsOf(
        (await cswGet(test.app, getRecords30({ maxRecords: '0' })).expect(200)).text,
      ).matched;
    });
    after(async () => {
      await test?.close();
    });

    /** Follows nextRecord from position 1; returns every id seen and the matched counts. */
    async function harvest(
      page: (start: number) => Promise<SearchResults>,
    ): Promise<{ ids: string[]; matched: number[] }> {
      const ids: string[] = [];
      const matched: number[] = [];
      let start = 1;
      for (let guard = 0; guard < 1000; guard += 1) {
        const results = await page(start);
        ids.push(...results.ids);
        matched.push(results.matched);
        expect(results.returned).to.equal(results.records.length);
        if (results.next === 0) return { ids, matched };
        expect(results.next).to.equal(start + results.returned);
        start = results.next;
      }
      throw new Error('harvest did not end');
    }

    it('sees every record exactly once, by GET (3.0), in identifier order, at several page sizes', async () => {
      expect(total).to.equal(samples + GENERATED);
      expect(total).to.be.greaterThan(2 * WINDOW);
      const before = pagingStats(test);
      for (const size of [1, 7, 25, 100]) {
        if (size === 1) {
          // One record per page is slow on a loaded machine; walk the first 40 only.
          const first = await cswGet(
            test.app,
            getRecords30({ maxRecords: '40', elementSetName: 'brief' }),
          ).expect(200);
          const ids: string[] = [];
          for (let start = 1; start <= 40; start += 1) {
            const page = searchResultsOf(
              (
                await cswGet(
                  test.app,
                  getRecords30({
                    startPosition: String(start),
                    maxRecords: '1',
                    elementSetName: 'brief',
                  }),
                ).expect(200)
              ).text,
            );
            ids.push(...page.ids);
          }
          expect(ids).to.deep.equal(searchResultsOf(first.text).ids);
          continue;
        }
        const { ids, matched } = await harvest(async (start) =>
          searchResultsOf(
            (
              await cswGet(
                test.app,
                getRecords30({
                  startPosition: String(start),
                  maxRecords: String(size),
                  elementSetName: 'brief',
                }),
              ).expect(200)
            ).text,
          ),
        );
        expect(ids, `page size ${size}`).to.have.length(total);
        expect(new Set(ids).size).to.equal(total);
        expect(ids).to.deep.equal([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(new Set(matched)).to.deep.equal(new Set([total]));
      }
      const after = pagingStats(test);
      if (before && after) {
        // Pages beyond the window were served from the previous page's sort values.
        expect(after.hits - before.hits).to.be.greaterThan(0);
      }
    });

    it('sees every record exactly once by POST (2.0.2, resultType=results), in ISO 19139', async () => {
      const { ids } = await harvest(async (start) => {
        const body = `<csw:GetRecords xmlns:csw="${NS.csw202}" service="CSW" version="2.0.2" resultType="results"
          startPosition="${start}" maxRecords="50" outputSchema="${NS.gmd}">
        <csw:Query typeNames="gmd:MD_Metadata"><csw:ElementSetName>full</csw:ElementSetName></csw:Query>
      </csw:GetRecords>`;
        return searchResultsOf((await cswPost(test.app, body).expect(200)).text);
      });
      expect(ids).to.have.length(total);
      expect(new Set(ids).size).to.equal(total);
    });

    it('a filtered, sorted harvest sees each matching record once', async () => {
      const filter = { q: 'climate,ocean,forest,lorem', sortBy: 'dc:title:D' };
      const expected = searchResultsOf(
        (await cswGet(test.app, getRecords30({ ...filter, maxRecords: '0' })).expect(200)).text,
      ).matched;
      expect(expected).to.be.greaterThan(20);
      const { ids } = await harvest(async (start) =>
        searchResultsOf(
          (
            await cswGet(
              test.app,
              getRecords30({
                ...filter,
                startPosition: String(start),
                maxRecords: '9',
                elementSetName: 'brief',
              }),
            ).expect(200)
          ).text,
        ),
      );
      expect(ids).to.have.length(expected);
      expect(new Set(ids).size).to.equal(expected);
    });

    it('pages at any startPosition are served directly, beyond the window too', async () => {
      const all = await harvest(async (start) =>
        searchResultsOf(
          (
            await cswGet(
              test.app,
              getRecords30({
                startPosition: String(start),
                maxRecords: String(WINDOW),
                elementSetName: 'brief',
              }),
            ).expect(200)
          ).text,
        ),
      );
      expect(all.ids).to.have.length(total);
      const before = pagingStats(test);
      for (const start of [2, 137, total - 3, total, WINDOW + 58]) {
        const page = searchResultsOf(
          (
            await cswGet(
              test.app,
              getRecords30({
                startPosition: String(start),
                maxRecords: '5',
                elementSetName: 'brief',
              }),
            ).expect(200)
          ).text,
        );
        expect(page.ids).to.deep.equal(all.ids.slice(start - 1, start - 1 + 5));
        expect(page.next).to.equal(start + 5 <= total ? start + 5 : 0);
      }
      const after = pagingStats(test);
      if (before && after) {
        // A jump to a position without a checkpoint walks there in strides of sort values.
        expect(after.walks - before.walks).to.be.greaterThan(0);
      }
    });
  });
}

for (const backend of suiteBackends()) describeSuite(backend);
