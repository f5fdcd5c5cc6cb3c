/**
 * Harvesting real peers, installed from PyPI as the peer bench installs them
 * (`scripts/python-env.sh peers`, scripts/bench/peers/requirements.txt) and started on loopback
 * by the bench's own code (scripts/bench/peers/peer-servers.ts):
 *
 * - pycsw 3 (gunicorn, SQLite) loaded with every sample XML record it reads (data/samples:
 *   ISO 19139, ISO 19115-3, Dublin Core) through its own parser, harvested by CSW 2.0.2 and
 *   3.0.0 (ISO and Dublin Core, GET and POST), OGC API – Records and OAI-PMH;
 * - SFEOS (stac-fastapi-opensearch) on the shared OpenSearch under an index prefix of its own,
 *   loaded with the sample STAC Collections and Items through its Transactions API, harvested
 *   by STAC API search (GET and POST).
 *
 * Each source: a full harvest takes exactly the records the peer holds (their ids, titles and
 * boxes compared with what the peer itself stored or was given, not with Cairn), an
 * incremental run then changes nothing, and after the peer deletes one record, changes another
 * (new title and modification date) and gains one (with an old date), an incremental run
 * brings the target to the peer's new record set (each source deletes and adds records of its
 * own, so the sources run one after the other on the peer as the previous ones left it).
 * A peer that cannot be installed or started fails the suite.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../scripts/bench/api-process.js';
import {
  deletePeerIndexesAndTemplates,
  installPeers,
  PYCSW_PEER_SCRIPT,
  runCommand,
  SFEOS_FLAVOURS,
  startPycsw,
  startSfeos,
  stopChild,
  type Peer,
} from '../../scripts/bench/peers/peer-servers.js';
import { AddressPolicy } from '../../shared/harvest/address-policy.js';
import {
  parseHarvestSource,
  resolveSource,
  type HarvestSourceDefinition,
} from '../../shared/harvest/harvest-source.js';
import { runHarvest, type HarvestOutcome } from '../../shared/harvest/run-harvest.js';
import { SourceClient } from '../../shared/harvest/source-client.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import { SqliteHarvestStore } from '../../shared/search/open-stores.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { createCatalogueApp, readDocuments } from '../support/catalogue-app.js';
import { samplePath } from '../support/fixtures.js';

type Bbox = [number, number, number, number];

/** What the peer holds of one record, as the peer stored it or was given it. */
interface PeerRecord {
  id: string;
  title: string | undefined;
  bbox: Bbox | undefined;
}

/** A Cairn target: a SQLite catalogue and source store of its own, and the source's run. */
interface Target {
  backend: SqliteBackend;
  store: SqliteHarvestStore;
  run(): Promise<HarvestOutcome>;
  close(): Promise<void>;
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((done) => setTimeout(done, milliseconds));
}

/**
 * Waits until the clock is in a later second than `since`: pycsw stamps its records in whole
 * seconds and an incremental run asks for the records changed since the last run started, so a
 * change and a run in the same second would be read as a change after the run.
 */
async function nextSecond(since = Date.now()): Promise<void> {
  const target = Math.floor(since / 1000) * 1000 + 1000;
  while (Date.now() < target + 50) await sleep(target + 50 - Date.now());
}

async function createTarget(
  work: string,
  definition: HarvestSourceDefinition,
  allowed: string,
): Promise<Target> {
  const directory = mkdtempSync(join(work, 'target-'));
  const backend = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
  await backend.init();
  const store = new SqliteHarvestStore(join(directory, 'ingest-log.sqlite'));
  await store.create(parseHarvestSource(definition));
  const source = resolveSource(parseHarvestSource(definition));
  const client = new SourceClient({ auth: source.auth, policy: new AddressPolicy([allowed]) });
  return {
    backend,
    store,
    run: () =>
      runHarvest({ source, backend, client, store, batchSize: 50, maxBytes: 8 * 1024 * 1024 }),
    close: async () => {
      await store.close();
      await backend.close();
    },
  };
}

async function stored(target: Target): Promise<CoreRecord[]> {
  const result = await target.backend.search({ sort: [], offset: 0, limit: 10_000 });
  return [...result.records].sort((a, b) => a.id.localeCompare(b.id));
}

function near(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= tolerance;
}

/**
 * The target holds exactly the peer's records: the same ids, and for each its title and its
 * box (within `tolerance` degrees: pycsw keeps its footprints to two decimals).
 */
async function assertSameRecords(
  target: Target,
  peer: PeerRecord[],
  tolerance: number,
  label: string,
): Promise<void> {
  const records = await stored(target);
  assert.deepEqual(
    records.map((record) => record.id),
    peer.map((record) => record.id).sort((a, b) => a.localeCompare(b)),
    `${label}: the record ids`,
  );
  const byId = new Map(records.map((record) => [record.id, record]));
  for (const expected of peer) {
    const record = byId.get(expected.id);
    assert.ok(record, `${label}: ${expected.id}`);
    if (expected.title !== undefined)
      assert.equal(record.title, expected.title, `${label}: the title of ${expected.id}`);
    if (expected.bbox === undefined) {
      assert.equal(record.bbox, undefined, `${label}: ${expected.id} has no box at the peer`);
      continue;
    }
    assert.ok(record.bbox, `${label}: the box of ${expected.id}`);
    assert.ok(
      record.bbox.every((value, index) => near(value, expected.bbox![index]!, tolerance)),
      `${label}: the box of ${expected.id}: ${JSON.stringify(record.bbox)} against the peer's ${JSON.stringify(expected.bbox)}`,
    );
  }
}

/** The box of a WKT polygon as pycsw stores a footprint. */
function wktBbox(wkt: string | null): Bbox | undefined {
  if (!wkt) return undefined;
  const numbers = [...wkt.matchAll(/-?\d+(?:\.\d+)?/g)].map((match) => Number(match[0]));
  const xs = numbers.filter((_, index) => index % 2 === 0);
  const ys = numbers.filter((_, index) => index % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

const SAMPLE_XML_FOLDERS = ['iso19139', 'iso19115-3', 'dublin-core-cite', 'stac'];

/** The sample XML documents pycsw and Cairn's own provider are loaded with, one record each. */
function sampleXmlDocuments(): ReturnType<typeof readDocuments> {
  return SAMPLE_XML_FOLDERS.flatMap((folder) =>
    readDocuments(samplePath(folder)).filter((document) => document.name.endsWith('.xml')),
  );
}

describe('harvesting real peers installed from PyPI (pycsw 3, SFEOS)', function () {
  // The first run installs the peers' venv (pip, a few minutes); later runs find it.
  this.timeout(600_000);
  let venv: string;
  let work: string;

  before(async () => {
    venv = await installPeers({ echoStderr: false });
    work = mkdtempSync(join(tmpdir(), 'cairn-harvest-peers-'));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('pycsw 3 (CSW 2.0.2 and 3.0.0, OGC API – Records, OAI-PMH)', () => {
    let pycsw: Peer | undefined;
    let dir: string;
    let python: string;
    let origin: string;
    let port: number;
    const pycswPeer = (...args: string[]): Promise<string> =>
      runCommand(python, [PYCSW_PEER_SCRIPT, ...args], undefined, { echoStderr: false });

    /** The records as pycsw stored them. */
    const peerRecords = async (): Promise<PeerRecord[]> => {
      const rows = JSON.parse(await pycswPeer('dump', dir)) as {
        identifier: string;
        title: string | null;
        wkt_geometry: string | null;
      }[];
      return rows.map((row) => ({
        id: row.identifier,
        title: row.title ?? undefined,
        bbox: wktBbox(row.wkt_geometry),
      }));
    };

    const CHANGED = '3e9a8c05';

    /**
     * Changes at the peer: one record deleted, one re-titled with a modification date of now,
     * one added with an old date (only an identifier listing shows it). pycsw's OGC API
     * – Records endpoint keeps the rows it has read in a SQLAlchemy session that lives as long
     * as its process, so it would go on serving the old title of a record another process
     * changed: the peer is restarted after the change, as after any out-of-process load.
     */
    const changePeer = async (deleted: string, added: string, title: string): Promise<void> => {
      const original = readFileSync(samplePath('iso19139', '3e9a8c05.xml'), 'utf8');
      assert.ok(original.includes('test Title') && original.includes('<gco:Date>2011-04-18<'));
      const changes = join(dir, 'changes');
      rmSync(changes, { recursive: true, force: true });
      mkdirSync(changes);
      writeFileSync(
        join(changes, 'changed.xml'),
        original
          .replace('test Title', title)
          .replace(
            '<gco:Date>2011-04-18</gco:Date>',
            `<gco:DateTime>${new Date().toISOString().slice(0, 19)}Z</gco:DateTime>`,
          ),
      );
      writeFileSync(
        join(changes, 'added.xml'),
        original.replace(`>${CHANGED}<`, `>${added}<`).replace('test Title', 'Added at the peer'),
      );
      assert.match(await pycswPeer('delete', dir, deleted), /"deleted": 1/);
      assert.match(await pycswPeer('load', dir, changes), /"loaded": 2, "failed": 0/);
      if (pycsw) await stopChild(pycsw.child);
      pycsw = undefined;
      pycsw = await startPycsw(venv, dir, port);
    };

    before(async () => {
      python = join(venv, 'bin', 'python');
      dir = join(work, 'pycsw');
      port = await findFreePort();
      origin = `http://127.0.0.1:${port}`;
      await pycswPeer('setup', dir, `${origin}/`);
      // Every sample XML record pycsw reads, through its own parser.
      const summary = JSON.parse(
        await pycswPeer('load', dir, ...SAMPLE_XML_FOLDERS.map((folder) => samplePath(folder))),
      ) as { loaded: number; failed: number };
      assert.equal(summary.failed, 0, 'pycsw refused none of the sample XML records');
      pycsw = await startPycsw(venv, dir, port);
    });
    after(async () => {
      if (pycsw) await stopChild(pycsw.child);
    });

    it('holds the sample records it reads, and serves them by each protocol', async () => {
      const records = await peerRecords();
      // Every sample XML file (ISO 19139, ISO 19115-3, Dublin Core and the ISO collection records
      // of the STAC samples) holds one record, and pycsw reads every one of them.
      const expected = sampleXmlDocuments().length;
      assert.equal(records.length, expected);
      assert.ok(records.some((record) => record.id === CHANGED));
      const csw = await fetch(
        `${origin}/csw?service=CSW&version=2.0.2&request=GetRecords&typeNames=csw:Record&elementSetName=brief&resultType=hits`,
      );
      assert.match(await csw.text(), new RegExp(`numberOfRecordsMatched="${expected}"`));
      const items = (await (
        await fetch(`${origin}/collections/metadata:main/items?limit=1`)
      ).json()) as {
        numberMatched: number;
      };
      assert.equal(items.numberMatched, expected);
      const oai = await fetch(`${origin}/oaipmh?verb=ListIdentifiers&metadataPrefix=oai_dc`);
      assert.match(await oai.text(), new RegExp(`completeListSize="${expected}"`));
    });

    it("OAI-PMH: Cairn's harvester takes the same record set from pycsw's provider and from Cairn's own, both loaded with the sample records", async () => {
      // Cairn's own provider over exactly the sample XML records pycsw was loaded with.
      const documents = sampleXmlDocuments();
      const cairn = await createCatalogueApp(documents);
      const server = createServer(cairn.app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const own = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const targets: Target[] = [];
      try {
        const harvested: string[][] = [];
        for (const [url, allowed] of [
          [`${origin}/oaipmh`, new URL(origin).host],
          [`${own}/catalogue/oai`, new URL(own).host],
        ] as const) {
          const target = await createTarget(
            work,
            { id: 'oai', protocol: 'oai-pmh', url, outputSchema: 'gmd', pageSize: 10 },
            allowed,
          );
          targets.push(target);
          const outcome = await target.run();
          assert.deepEqual(outcome.letters, [], `nothing refused from ${url}`);
          harvested.push((await stored(target)).map((record) => record.id));
        }
        const [fromPycsw, fromCairn] = harvested;
        assert.equal(fromPycsw?.length, documents.length);
        assert.deepEqual(fromCairn, fromPycsw);
        // And both are what pycsw stored.
        assert.deepEqual(
          fromPycsw,
          (await peerRecords()).map((record) => record.id).sort((a, b) => a.localeCompare(b)),
        );
      } finally {
        for (const target of targets) await target.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await cairn.close();
      }
    });

    const variants: { name: string; source: () => Record<string, unknown>; note?: string }[] = [
      {
        name: 'CSW 2.0.2, ISO 19139, POST',
        source: () => ({
          protocol: 'csw',
          url: `${origin}/csw`,
          version: '2.0.2',
          outputSchema: 'gmd',
          method: 'POST',
        }),
      },
      {
        name: 'CSW 2.0.2, Dublin Core, GET',
        source: () => ({
          protocol: 'csw',
          url: `${origin}/csw`,
          version: '2.0.2',
          outputSchema: 'dc',
          method: 'GET',
        }),
      },
      {
        name: 'CSW 3.0.0, Dublin Core, GET',
        source: () => ({
          protocol: 'csw',
          url: `${origin}/csw`,
          version: '3.0.0',
          outputSchema: 'dc',
          method: 'GET',
        }),
      },
      {
        name: 'CSW 3.0.0, ISO 19139, POST',
        source: () => ({
          protocol: 'csw',
          url: `${origin}/csw`,
          version: '3.0.0',
          outputSchema: 'gmd',
          method: 'POST',
        }),
      },
      {
        name: 'OGC API – Records',
        source: () => ({ protocol: 'records', url: `${origin}/collections/metadata:main/items` }),
      },
      {
        name: 'OAI-PMH, ISO 19139',
        source: () => ({ protocol: 'oai-pmh', url: `${origin}/oaipmh`, outputSchema: 'gmd' }),
      },
      {
        name: 'OAI-PMH, Dublin Core',
        source: () => ({ protocol: 'oai-pmh', url: `${origin}/oaipmh`, outputSchema: 'dc' }),
      },
    ];

    for (const [index, variant] of variants.entries()) {
      it(`${variant.name}: a full harvest takes every record, incremental runs follow the peer's changes`, async () => {
        const definition = {
          id: 'pycsw',
          pageSize: 10,
          ...variant.source(),
        } as HarvestSourceDefinition;
        const oai = definition.protocol === 'oai-pmh';
        const target = await createTarget(work, definition, new URL(origin).host);
        try {
          await nextSecond();
          const expected = await peerRecords();
          const first = await target.run();
          assert.equal(first.mode, 'full');
          assert.deepEqual(first.letters, [], 'nothing refused');
          assert.equal(first.written, expected.length);
          // ISO 19139 keeps the peer's boxes to more decimals than pycsw's footprints.
          await assertSameRecords(target, expected, 0.006, 'full harvest');

          const second = await target.run();
          if (oai) {
            // pycsw's provider declares deletedRecord "no": an incremental listing could not
            // show what was deleted, so the run is a full one (and deletes nothing here).
            assert.equal(second.mode, 'full');
            assert.equal(second.deleted, 0);
          } else {
            assert.equal(second.mode, 'incremental');
            assert.deepEqual([second.read, second.written, second.deleted], [0, 0, 0]);
          }
          await assertSameRecords(target, expected, 0.006, 'second run');

          // A record other than the changed one goes; each source adds one of its own.
          const deleted = expected.filter((record) => record.id !== CHANGED)[index]?.id;
          assert.ok(deleted);
          const added = `cairn-harvest-peers-added-${index}`;
          await nextSecond();
          const title = `Changed at the peer ${Date.now()}`;
          await changePeer(deleted, added, title);
          const changed = await peerRecords();
          assert.ok(changed.some((record) => record.id === added));
          assert.ok(!changed.some((record) => record.id === deleted));
          assert.equal(changed.find((record) => record.id === CHANGED)?.title, title);
          await nextSecond();
          const third = await target.run();
          assert.equal(third.mode, oai ? 'full' : 'incremental');
          assert.deepEqual(third.letters, []);
          assert.equal(third.deleted, 1);
          if (!oai) assert.equal(third.written, 2, 'the changed and the added record');
          await assertSameRecords(target, changed, 0.006, 'after the changes');
          assert.equal((await target.backend.get(CHANGED))?.title, title);
        } finally {
          await target.close();
        }
      });
    }
  });

  describe('SFEOS (stac-fastapi-opensearch: STAC API)', () => {
    const engine = process.env.CAIRN_TEST_OPENSEARCH_URL;
    const prefix = `cairn-test-harvest-peers-${process.pid}-`;
    let sfeos: Peer | undefined;
    let origin: string;
    /** The sample Items SFEOS took, as they were sent. */
    const loaded = new Map<string, Record<string, unknown>>();

    const send = async (method: string, path: string, body?: unknown): Promise<Response> =>
      fetch(`${origin}${path}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    const refresh = async (): Promise<void> => {
      const response = await fetch(`${engine}/${prefix}*/_refresh`, { method: 'POST' });
      assert.ok(response.ok, `refreshing ${prefix}*: ${response.status}`);
    };
    const itemPath = (item: Record<string, unknown>): string =>
      `/collections/${encodeURIComponent(String(item.collection))}/items`;
    /**
     * Deletes an Item at the peer. Without If-Match SFEOS 8.0 deletes by `_delete_by_query`,
     * which an OpenSearch without its reindex module (the minimal distribution, as here) does
     * not have (SFEOS answers 500); with the Item's ETag as If-Match it deletes the document.
     */
    const deleteItem = async (item: Record<string, unknown>): Promise<number> => {
      const path = `${itemPath(item)}/${encodeURIComponent(String(item.id))}`;
      const found = await send('GET', path);
      const etag = found.headers.get('etag');
      if (found.status === 404 || etag === null) return found.status;
      const response = await fetch(`${origin}${path}`, {
        method: 'DELETE',
        headers: { 'if-match': etag },
      });
      return response.status;
    };

    /** The Items SFEOS holds, as given to it. */
    const peerRecords = (): PeerRecord[] =>
      [...loaded.values()].map((item) => ({
        id: String(item.id),
        title: (item.properties as { title?: string }).title,
        bbox: item.bbox as Bbox,
      }));

    /** The ids SFEOS's own search lists. */
    const listedIds = async (): Promise<string[]> => {
      const answer = (await (await send('GET', '/search?limit=200')).json()) as {
        features: { id: string }[];
      };
      return answer.features.map((feature) => feature.id).sort((a, b) => a.localeCompare(b));
    };

    before(async () => {
      if (!engine)
        throw new Error('CAIRN_TEST_OPENSEARCH_URL is not set (source ~/.cache/cairn/run/env.sh)');
      await deletePeerIndexesAndTemplates(engine, prefix);
      const port = await findFreePort();
      origin = `http://127.0.0.1:${port}`;
      sfeos = await startSfeos(venv, SFEOS_FLAVOURS.sfeos, engine, prefix, port);
      const documents = readdirSync(samplePath('stac'))
        .filter((name) => name.endsWith('.json'))
        .map(
          (name) =>
            JSON.parse(readFileSync(samplePath('stac', name), 'utf8')) as Record<string, unknown>,
        );
      const items = documents.filter(
        (document) => document.type === 'Feature' && document.collection,
      );
      // The Collections the Items name: the sample Collection where there is one, else a
      // minimal one (S2MSI1C and S2MSI2A are ISO records among the samples, not STAC).
      for (const id of new Set(items.map((item) => String(item.collection)))) {
        const sample = documents.find(
          (document) => document.type === 'Collection' && document.id === id,
        );
        const collection = sample ?? {
          type: 'Collection',
          stac_version: '1.0.0',
          id,
          description: id,
          license: 'proprietary',
          links: [],
          extent: {
            spatial: { bbox: [[-180, -90, 180, 90]] },
            temporal: { interval: [[null, null]] },
          },
        };
        const created = await send('POST', '/collections', collection);
        assert.equal(created.status, 201, `collection ${id}: ${await created.text()}`);
      }
      for (const item of items) {
        const answer = await send('POST', itemPath(item), item);
        assert.equal(answer.status, 201, `item ${String(item.id)}: ${await answer.text()}`);
        loaded.set(String(item.id), item);
      }
      await refresh();
    });
    after(async () => {
      if (sfeos) await stopChild(sfeos.child);
      if (engine) await deletePeerIndexesAndTemplates(engine, prefix);
    });

    it('holds every sample Item that names a collection, and lists them in its search', async () => {
      // 26 Sentinel-2 Items; the Planet-style Item names no collection, which SFEOS requires.
      assert.equal(loaded.size, 25);
      assert.deepEqual(
        await listedIds(),
        [...loaded.keys()].sort((a, b) => a.localeCompare(b)),
      );
    });

    for (const method of ['GET', 'POST'] as const) {
      it(`STAC API search by ${method}: a full harvest takes every Item, incremental runs follow the peer's changes`, async () => {
        const target = await createTarget(
          work,
          { id: 'sfeos', protocol: 'stac', url: `${origin}/search`, method, pageSize: 10 },
          new URL(origin).host,
        );
        const [deleted, changed, template] = [...loaded.values()];
        assert.ok(deleted && changed && template);
        const added: Record<string, unknown> & { id: string } = {
          ...template,
          id: `cairn-harvest-peers-added-${method}`,
          properties: { ...(template.properties as object), title: 'Added at the peer' },
        };
        try {
          const first = await target.run();
          assert.equal(first.mode, 'full');
          assert.deepEqual(first.letters, []);
          assert.equal(first.written, loaded.size);
          await assertSameRecords(target, peerRecords(), 1e-9, 'full harvest');

          const second = await target.run();
          assert.equal(second.mode, 'incremental');
          assert.deepEqual([second.read, second.written, second.deleted], [0, 0, 0]);

          // At the peer: one Item deleted, one re-titled (SFEOS stamps `updated`), one added.
          const title = `Changed at the peer ${Date.now()}`;
          assert.equal(await deleteItem(deleted), 204, 'the Item deleted at the peer');
          const retitled = {
            ...changed,
            properties: { ...(changed.properties as object), title },
          };
          const put = await send(
            'PUT',
            `${itemPath(changed)}/${encodeURIComponent(String(changed.id))}`,
            retitled,
          );
          assert.ok(put.ok, `update: ${put.status} ${await put.text()}`);
          const posted = await send('POST', itemPath(added), added);
          assert.equal(posted.status, 201, await posted.text());
          await refresh();
          const expected = peerRecords()
            .filter((record) => record.id !== deleted.id)
            .map((record) => (record.id === changed.id ? { ...record, title } : record))
            .concat([{ id: added.id, title: 'Added at the peer', bbox: added.bbox as Bbox }]);
          assert.deepEqual(
            await listedIds(),
            expected.map((record) => record.id).sort((a, b) => a.localeCompare(b)),
          );

          const third = await target.run();
          assert.equal(third.mode, 'incremental');
          assert.deepEqual(third.letters, []);
          assert.equal(third.deleted, 1);
          assert.equal(third.written, 2, 'the changed and the added Item');
          await assertSameRecords(target, expected, 1e-9, 'after the changes');
        } finally {
          await target.close();
          // The peer as loaded again.
          await deleteItem(added);
          await deleteItem(deleted);
          await send('POST', itemPath(deleted), deleted);
          await send(
            'PUT',
            `${itemPath(changed)}/${encodeURIComponent(String(changed.id))}`,
            changed,
          );
          await refresh();
        }
      });
    }
  });
});
