/**
 * The CQL2 conformance cases (test/integration/cql2/cases.ts, the table the backend suite runs)
 * through the path a user takes: the test data set (Natural Earth 1:110m countries, populated
 * places, rivers) loaded by the ingest CLI into the backend CAIRN_TEST_SYSTEM_BACKEND chooses,
 * each layer into a catalogue of its own (their feature ids restart at 1), then every case sent
 * over HTTP to the STAC search (`/catalogue/search`, CQL2 text by GET and CQL2 JSON by POST) and
 * to the Records items (`/catalogue/collections/metadata:main/items`, text and JSON by GET).
 *
 * Each answer must be exactly the features the case's independent predicate selects, and its
 * count the CQL2 abstract test suite's where it gives one, through both protocols alike: the
 * features' own properties (NAME, pop_est …) are queryables the catalogue learned as the CLI
 * wrote them, so Records accepts them as STAC does. A property no feature of the layer has is a
 * 400 naming it on both. The records of the backend suite's own (arrays, record time intervals)
 * are not in the data set and are left to that suite.
 */
import { expect } from 'chai';
import request from 'supertest';
import { findQueryable } from '../../shared/query/queryables.js';
import { CQL2_CASE_GROUPS, type Case } from '../integration/cql2/cases.js';
import { LAYER_FILES, readLayer, type LoadedFeature } from '../integration/cql2/ne110m.js';
import type { Json } from '../integration/cql2/oracle.js';
import { fixturePath } from '../support/fixtures.js';
import { cliCount, ingestWithCli, type CliCatalogue } from '../support/ingest-cli.js';
import { systemBackend } from '../support/system-backend.js';

type Layer = keyof typeof LAYER_FILES;
const LAYERS = Object.keys(LAYER_FILES) as Layer[];

const ITEMS = '/catalogue/collections/metadata:main/items';
const SEARCH = '/catalogue/search';
/** Cases asked at once; each sends its four requests together. */
const CASES_AT_ONCE = 2;
/** Above the largest layer, so that one page holds every answer. */
const LIMIT = 1000;
/** The STAC fields that keep an answer to its ids (the countries' outlines are 0.5 MB). */
const ID_ONLY_FIELDS = { include: ['id'], exclude: ['geometry', 'bbox', 'properties', 'links'] };

/** The property names a CQL2 JSON filter reads. */
function propertiesOf(json: Json, names = new Set<string>()): Set<string> {
  if (Array.isArray(json)) {
    for (const item of json) propertiesOf(item, names);
  } else if (json !== null && typeof json === 'object') {
    const object = json as Record<string, Json>;
    if (typeof object.property === 'string') names.add(object.property);
    for (const member of Object.values(object)) propertiesOf(member, names);
  }
  return names;
}

/** Runs the tasks, at most `limit` at once, and returns their results in order. */
async function inPool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

interface Answer {
  route: string;
  status: number;
  ids: string[] | undefined;
  matched: number | undefined;
  description: string | undefined;
}

const target = systemBackend();
/** Lane limits above the suite's own concurrency (cases at once × the four routes of each). */
const EXPENSIVE_LANE = { QUERY_EXPENSIVE_CONCURRENCY: '32', QUERY_EXPENSIVE_PER_CLIENT: '32' };

describe(`CQL2 conformance cases over HTTP, loaded by the ingest CLI (${target.label})`, function () {
  this.timeout(600_000);
  const catalogues = new Map<Layer, CliCatalogue>();
  const features = new Map<Layer, LoadedFeature[]>();
  /** The property names the features of each layer have a value of (what the catalogue learns). */
  const knownProperties = new Map<Layer, Set<string>>();

  before(async function () {
    this.timeout(600_000);
    for (const layer of LAYERS) {
      features.set(layer, readLayer(layer));
      knownProperties.set(
        layer,
        new Set(
          features
            .get(layer)!
            .flatMap((feature) => Object.entries(feature.properties))
            .filter(([, value]) => value !== null && value !== undefined)
            .map(([name]) => name),
        ),
      );
      // The cases run several at a time from one client, and many are decided in Node (the
      // expensive lane): the lane's limits are raised to that concurrency, as this suite is
      // about answers, not about fairness (test/system/expensive-lane.test.ts is).
      const catalogue = await ingestWithCli(
        target,
        [fixturePath('cql2', 'ne110m', LAYER_FILES[layer])],
        EXPENSIVE_LANE,
      );
      catalogues.set(layer, catalogue);
      const { ingest } = catalogue;
      expect(ingest.code, ingest.stdout + ingest.stderr).to.equal(0);
      expect(cliCount(ingest.stdout, 'records rejected'), ingest.stdout).to.equal(0);
      expect(cliCount(ingest.stdout, 'records written')).to.equal(features.get(layer)!.length);
    }
  });
  after(async () => {
    for (const catalogue of catalogues.values()) await catalogue.close();
  });

  /** The record ids (the features' own) the case's independent predicate selects. */
  function expectedIds(item: Case & { layer: Layer }): string[] {
    return features
      .get(item.layer)!
      .filter((feature) => item.oracle(feature.properties, feature) === true)
      .map((feature) => feature.recordId.slice(item.layer.length + 1))
      .sort();
  }

  /** The four answers to one case: Records by GET (text, JSON), STAC by GET (text) and POST. */
  async function ask(item: Case & { layer: Layer }): Promise<Answer[]> {
    const app = catalogues.get(item.layer)!.app;
    const json = JSON.stringify(item.json);
    const records = (lang: string, filter: string) =>
      request(app)
        .get(ITEMS)
        .query({
          filter,
          'filter-lang': lang,
          limit: String(LIMIT),
          skipGeometry: 'true',
          properties: 'title',
        });
    const sent: [string, request.Test][] = [
      ['Records GET cql2-text', records('cql2-text', item.text)],
      ['Records GET cql2-json', records('cql2-json', json)],
      [
        'STAC GET cql2-text',
        request(app)
          .get(SEARCH)
          .query({
            filter: item.text,
            'filter-lang': 'cql2-text',
            limit: String(LIMIT),
            fields: 'id,-geometry,-bbox,-properties,-links',
          }),
      ],
      [
        'STAC POST cql2-json',
        request(app).post(SEARCH).send({
          filter: item.json,
          'filter-lang': 'cql2-json',
          limit: LIMIT,
          fields: ID_ONLY_FIELDS,
        }),
      ],
    ];
    return Promise.all(
      sent.map(async ([route, test]) => {
        const response = await test;
        const body = response.body as {
          features?: { id: string }[];
          numberMatched?: number;
          description?: string;
        };
        return {
          route,
          status: response.status,
          ids: body.features?.map((feature) => String(feature.id)).sort(),
          matched: body.numberMatched,
          description: body.description,
        };
      }),
    );
  }

  /** What is wrong with the answers to a case (empty when they are right). */
  function judge(item: Case & { layer: Layer }, answers: Answer[]): string[] {
    const expected = expectedIds(item);
    const problems: string[] = [];
    const where = `${item.layer}: ${item.text}`;
    if (item.ats !== undefined && expected.length !== item.ats) {
      problems.push(
        `${where}: the independent count ${expected.length} is not the ATS's ${item.ats}`,
      );
    }
    const known = knownProperties.get(item.layer)!;
    const unknown = [...propertiesOf(item.json)].filter(
      (name) => !findQueryable(name) && !known.has(name),
    );
    for (const answer of answers) {
      if (unknown.length > 0) {
        const named = unknown.some((name) => answer.description?.includes(`"${name}"`));
        if (answer.status !== 400 || !named) {
          problems.push(
            `${where} [${answer.route}]: expected a 400 naming one of ${unknown.join(', ')}, got ${answer.status} ${answer.description ?? ''}`,
          );
        }
        continue;
      }
      if (answer.status !== 200) {
        problems.push(`${where} [${answer.route}]: ${answer.status} ${answer.description ?? ''}`);
        continue;
      }
      if (answer.matched !== expected.length) {
        problems.push(
          `${where} [${answer.route}]: numberMatched ${answer.matched}, expected ${expected.length}`,
        );
      }
      if (JSON.stringify(answer.ids) !== JSON.stringify(expected)) {
        const got = new Set(answer.ids);
        const missing = expected.filter((id) => !got.has(id));
        const extra = (answer.ids ?? []).filter((id) => !expected.includes(id));
        problems.push(
          `${where} [${answer.route}]: missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(extra)}`,
        );
      }
    }
    return problems;
  }

  const onDataSet = (group: (typeof CQL2_CASE_GROUPS)[number]) =>
    group.cases.filter((item): item is Case & { layer: Layer } =>
      (LAYERS as string[]).includes(item.layer),
    );

  it('runs the cases of the test data set: hundreds, most with the ATS count', () => {
    const cases = CQL2_CASE_GROUPS.flatMap(onDataSet);
    expect(cases.length).to.be.greaterThan(250);
    expect(cases.filter((item) => item.ats !== undefined).length).to.be.greaterThan(100);
  });

  for (const group of CQL2_CASE_GROUPS) {
    const cases = onDataSet(group);
    if (cases.length === 0) continue;
    it(`${group.title} (${cases.length} cases)`, async () => {
      const answers = await inPool(
        cases.map((item) => () => ask(item)),
        CASES_AT_ONCE,
      );
      const problems = cases.flatMap((item, index) => judge(item, answers[index]!));
      expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
    });
  }
});
