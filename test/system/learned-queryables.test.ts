/**
 * Queryables learned from the data, through two API replicas over one catalogue (the SQLite
 * file, or the alias on the engine CAIRN_TEST_SYSTEM_BACKEND chooses): a record written over
 * HTTP through replica A (real Keycloak token) makes its own properties filterable through
 * replica B at once, by the OGC API – Records items and by the STAC search alike; a property no
 * record has is a 400 naming it on both, in each protocol's error format; both queryables
 * documents list the learned properties with their JSON types beside the core ones
 * (JSON Schema, Features Part 3); QUERYABLES_MAX_LEARNED bounds what is learned. `sortby` orders
 * by a learned property through both protocols, in the same order on every backend (numbers by
 * value, text by code point, booleans false first, records without the value last in both
 * directions, ties by id), and the Records sortables document lists the sortable ones.
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { createLogger } from '../../shared/logging/index.js';
import { checkFilter } from '../../shared/query/check-filter.js';
import { parseCql2Text } from '../../shared/query/cql2/index.js';
import { QUERYABLES } from '../../shared/query/queryables.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { createEngineBackend } from '../../shared/search/create-backend.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { engineUrl, systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const RECORDS_QUERYABLES = '/catalogue/collections/metadata:main/queryables';
const SEARCH = '/catalogue/search';
const STAC_QUERYABLES = '/catalogue/queryables';
const RECORDS_SORTABLES = '/catalogue/collections/metadata:main/sortables';

const target = systemBackend();

/** A generated record (GeoJSON) with properties of its own added. */
function recordWith(index: number, own: Record<string, unknown>): Record<string, unknown> {
  const record = [...generateRecords(1, 99, 60000 + index)][0] as unknown as {
    id: string;
    properties: Record<string, unknown>;
  };
  return { ...record, properties: { ...record.properties, ...own } };
}

/** A second backend over the catalogue of the first (same file, same alias). */
async function openReplicaBackend(test: TestApp): Promise<SearchBackend> {
  const { search } = test.config;
  if (search.kind === 'sqlite') {
    const backend = new SqliteBackend({ path: search.path });
    await backend.init();
    return backend;
  }
  const backend = createEngineBackend({
    engine: search.kind,
    url: engineUrl(target),
    alias: search.alias,
    refresh: 'wait_for',
    ...(search.spatial !== undefined && { spatial: search.spatial }),
  });
  await backend.init();
  return backend;
}

describe(`Queryables learned from the data, across two API replicas (${target.label})`, function () {
  this.timeout(120_000);
  let writer: TestApp;
  let replicaBackend: SearchBackend;
  let replica: Express;
  let token: string;

  before(async () => {
    await requireKeycloak();
    token = (await userTokens('alice')).accessToken;
    const directory = mkdtempSync(join(tmpdir(), 'cairn-learned-'));
    writer = await createTestApp(3, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    });
    replicaBackend = await openReplicaBackend(writer);
    replica = createApp({
      config: writer.config,
      backend: replicaBackend,
      logger: createLogger('silent', 'test'),
    });
  });
  after(async () => {
    await replicaBackend?.close();
    await writer?.close();
  });

  /** The Records and STAC answers of the replica to one CQL2 text filter. */
  async function filterBoth(text: string) {
    const records = await request(replica).get(ITEMS).query({ filter: text, limit: '50' });
    const stac = await request(replica).get(SEARCH).query({ filter: text, limit: '50' });
    return { records, stac };
  }

  it('refuses a property no record has through both protocols, naming it', async () => {
    // The replica reads what is known first (a filter on a core queryable), so the property
    // learned later is missing from what it read: the refusal must not be cached.
    const core = await filterBoth("type = 'dataset'");
    expect(core.records.status, core.records.text).to.equal(200);
    expect(core.stac.status, core.stac.text).to.equal(200);
    const { records, stac } = await filterBoth('survey_depth > 10');
    expect(records.status).to.equal(400);
    expect(records.body.code).to.equal('INVALID_FILTER');
    expect(records.body.description).to.contain('"survey_depth"');
    expect(stac.status).to.equal(400);
    expect(stac.body.code).to.equal('INVALID_FILTER');
    expect(stac.body.description).to.contain('"survey_depth"');
  });

  it('filters on the properties of a record written through the other replica, by both protocols', async () => {
    const deep = recordWith(1, { survey_depth: 42, survey_vessel: 'Polarstern', survey_ok: true });
    const shallow = recordWith(2, { survey_depth: 5, survey_vessel: 'Meteor', survey_crew: 12 });
    const post = async (record: Record<string, unknown>): Promise<void> => {
      const created = await request(writer.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${token}`)
        .send(record);
      expect(created.status, created.text).to.equal(201);
    };
    await post(deep);
    // Between the writes the replica's backend searches on the property only the second record
    // has (unchecked, as CSW may): nothing has it yet, so what the replica read of its
    // catalogue then lacks it, and the filter right after the second write must look again.
    const before = await replicaBackend.search({
      sort: [],
      offset: 0,
      limit: 10,
      filter: checkFilter(parseCql2Text('survey_crew > 1')),
    });
    expect(before.total, 'survey_crew before the second write').to.equal(0);
    await post(shallow);
    const ids = (response: request.Response) =>
      (response.body.features as { id: string }[]).map((feature) => feature.id).sort();
    // Right after the acknowledged writes, with nothing waited for.
    for (const [text, expected] of [
      ['survey_crew > 1', [shallow.id]],
      ['survey_depth > 10', [deep.id]],
      ["survey_vessel = 'Meteor'", [shallow.id]],
      ['survey_depth BETWEEN 1 AND 100', [deep.id, shallow.id].sort()],
    ] as const) {
      const { records, stac } = await filterBoth(text);
      expect(records.status, `${text}: ${records.text}`).to.equal(200);
      expect(stac.status, `${text}: ${stac.text}`).to.equal(200);
      expect(ids(records), text).to.deep.equal(expected);
      expect(ids(stac), text).to.deep.equal(expected);
      expect(records.body.numberMatched, text).to.equal(expected.length);
    }
    // STAC clients may write the property under `properties.`, as the item shows it.
    const prefixed = await request(replica)
      .post(SEARCH)
      .send({ filter: { op: '>', args: [{ property: 'properties.survey_depth' }, 10] } });
    expect(prefixed.status, prefixed.text).to.equal(200);
    expect(ids(prefixed)).to.deep.equal([deep.id]);
    // Still unknown: a property nobody wrote.
    const { records, stac } = await filterBoth("survey_captain = 'Nemo'");
    expect(records.status).to.equal(400);
    expect(records.body.description).to.contain('"survey_captain"');
    expect(stac.status).to.equal(400);
    expect(stac.body.description).to.contain('"survey_captain"');
  });

  it('sorts by a learned property through both protocols, the same way on every backend', async () => {
    // Ids in the reverse of most expected orders, so that a sort falling back to the id shows.
    const own: [string, Record<string, unknown>][] = [
      ['sort-e', { rank_value: 10, rank_label: 'beta', rank_flag: true, rank_tags: ['x', 'y'] }],
      ['sort-d', { rank_value: -1.5, rank_label: 'Alpha', rank_flag: false }],
      ['sort-c', { rank_label: 'Ärger' }],
      ['sort-b', { rank_value: 3, rank_label: 'alpha', rank_flag: true }],
      ['sort-a', { rank_value: 3, rank_flag: false }],
    ];
    const run = own.map(([id, properties], index) => ({
      ...recordWith(10 + index, { ...properties, rank_run: 'r1' }),
      id,
    }));
    for (const record of run) {
      const created = await request(writer.app)
        .post(ITEMS)
        .set('Authorization', `Bearer ${token}`)
        .send(record);
      expect(created.status, created.text).to.equal(201);
    }
    const ids = run.map((record) => record.id).join(',');
    const order = (response: request.Response) =>
      (response.body.features as { id: string }[]).map((feature) => feature.id);
    const sortBoth = async (sortby: string) => ({
      records: await request(replica).get(ITEMS).query({ ids, sortby, limit: '50' }),
      stac: await request(replica).get(SEARCH).query({ ids, sortby, limit: '50' }),
    });
    // A field new to an Elasticsearch index can be missing from a shard for a moment after the
    // acknowledged write (see the filter test above): wait until the sort reads it.
    const deadline = Date.now() + 5000;
    while (order((await sortBoth('-rank_value')).records)[0] !== 'sort-e') {
      expect(Date.now(), 'rank_value sortable through the replica').to.be.below(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const [sortby, expected] of [
      // Numbers by value; records without one last in both directions; ties by id.
      ['rank_value', ['sort-d', 'sort-a', 'sort-b', 'sort-e', 'sort-c']],
      ['-rank_value', ['sort-e', 'sort-a', 'sort-b', 'sort-d', 'sort-c']],
      // Text by code point: capitals before small letters, accented letters after both.
      ['rank_label', ['sort-d', 'sort-b', 'sort-e', 'sort-c', 'sort-a']],
      ['-rank_label', ['sort-c', 'sort-e', 'sort-b', 'sort-d', 'sort-a']],
      // Booleans: false before true.
      ['rank_flag,id', ['sort-a', 'sort-d', 'sort-b', 'sort-e', 'sort-c']],
      ['-rank_flag,-id', ['sort-e', 'sort-b', 'sort-d', 'sort-a', 'sort-c']],
      // A learned key after a core one.
      ['rank_run,-rank_value', ['sort-e', 'sort-a', 'sort-b', 'sort-d', 'sort-c']],
    ] as const) {
      const { records, stac } = await sortBoth(sortby);
      expect(records.status, `${sortby}: ${records.text}`).to.equal(200);
      expect(stac.status, `${sortby}: ${stac.text}`).to.equal(200);
      expect(order(records), `Records ${sortby}`).to.deep.equal(expected);
      expect(order(stac), `STAC ${sortby}`).to.deep.equal(expected);
    }
    // STAC POST, with the name as the item shows it.
    const posted = await request(replica)
      .post(SEARCH)
      .send({
        ids: ids.split(','),
        sortby: [{ field: 'properties.rank_value', direction: 'desc' }],
      });
    expect(posted.status, posted.text).to.equal(200);
    expect(order(posted)).to.deep.equal(['sort-e', 'sort-a', 'sort-b', 'sort-d', 'sort-c']);
    // A property no record has stays a 400 naming it, in each protocol.
    const unknown = await sortBoth('rank_missing');
    for (const response of [unknown.records, unknown.stac]) {
      expect(response.status).to.equal(400);
      expect(response.body.code).to.equal('INVALID_PARAMETER');
      expect(response.body.description).to.contain('"rank_missing"');
    }
    // An array-valued property: SQLite cannot order JSON arrays and refuses it; the engines
    // index its items and order by the least (ascending) or greatest (descending) of them.
    const tags = await sortBoth('rank_tags');
    if (target.kind === 'sqlite') {
      expect(tags.records.status).to.equal(400);
      expect(tags.stac.status).to.equal(400);
    } else {
      expect(order(tags.records)[0]).to.equal('sort-e');
      expect(order(tags.stac)[0]).to.equal('sort-e');
    }
    // The sortables document lists the sortable learned properties.
    const sortables = await request(replica).get(RECORDS_SORTABLES).expect(200);
    const properties = sortables.body.properties as Record<string, unknown>;
    expect(properties).to.include.keys('title', 'rank_value', 'rank_label', 'rank_flag');
    expect(Object.hasOwn(properties, 'rank_tags')).to.equal(target.kind !== 'sqlite');
  });

  it('lists the learned properties with their JSON types in both queryables documents', async () => {
    const records = await request(replica).get(RECORDS_QUERYABLES).expect(200);
    const stac = await request(replica).get(STAC_QUERYABLES).expect(200);
    expect(records.body).to.include({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
    });
    expect(records.body.$id).to.match(/\/catalogue\/collections\/metadata:main\/queryables$/);
    expect(stac.body).to.include({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      additionalProperties: false,
    });
    expect(stac.body.$id).to.match(/\/catalogue\/queryables$/);
    for (const body of [records.body, stac.body]) {
      const properties = body.properties as Record<string, { type?: unknown; title?: string }>;
      expect(properties.survey_depth).to.deep.equal({ title: 'survey_depth', type: 'number' });
      expect(properties.survey_vessel).to.deep.equal({ title: 'survey_vessel', type: 'string' });
      // Booleans are indexed as keywords on the engines, so they read back as strings there.
      expect(properties.survey_ok?.type).to.equal(target.kind === 'sqlite' ? 'boolean' : 'string');
      expect(properties).to.not.have.property('survey_captain');
    }
    const names = Object.keys(records.body.properties as object);
    expect(names.slice(0, QUERYABLES.length)).to.deep.equal(QUERYABLES.map((q) => q.name));
    const html = await request(replica).get(`${RECORDS_QUERYABLES}?f=html`).expect(200);
    expect(html.text).to.contain('<code>survey_vessel</code>');
  });
});
