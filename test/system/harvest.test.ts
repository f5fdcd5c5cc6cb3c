/**
 * Harvesting a second Cairn instance on loopback (embedded mode, SQLite) through the admin
 * source endpoints with real Keycloak tokens: CSW 2.0.2 (ISO, POST) and 3.0 (Dublin Core, GET),
 * OGC API – Records and STAC API (GET and POST). Every record arrives exactly once; a second,
 * incremental run changes nothing; a record modified or added at the source arrives, a record
 * deleted there disappears, and records this source did not contribute are left alone.
 * Also: the endpoints' auth and bad input, protected sources (client credentials, token
 * exchange with the source as sole audience) and an unreachable source.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { SourceClient } from '../../shared/harvest/index.js';
import { createTokenClient } from '../../shared/auth/token-exchange.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createCatalogueApp } from '../support/catalogue-app.js';
import type { TestApp } from '../support/test-app.js';
import {
  audienceOf,
  CLIENT,
  closedLoopbackPort,
  ISSUER,
  requireKeycloak,
  TOKEN_ENDPOINT,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import {
  allIds,
  changeSource,
  startSourceCatalogue,
  type SourceCatalogue,
} from './harvest-support.js';
import { defined } from '../support/defined.js';

const SOURCE_RECORDS = 23;
const WORKER_SECRET = 'cairn-worker-test-secret';

/** A local record of the target (seed 99): no harvest may delete it. */
const LOCAL = defined([...generateRecords(1, 99, 777)][0], 'the local record');

function targetEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-'));
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    AUTH_EXCHANGE_CLIENT_ID: CLIENT.worker,
    AUTH_EXCHANGE_CLIENT_SECRET: WORKER_SECRET,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    // The sources are on loopback, which harvesting refuses unless named here.
    HARVEST_ALLOWED_ADDRESSES: '127.0.0.1:*',
    ...extra,
  };
}

async function createTarget(extra: Record<string, string> = {}): Promise<TestApp> {
  return createCatalogueApp(
    [{ name: 'local', content: JSON.stringify(LOCAL) }],
    targetEnvironment(extra),
  );
}

interface RunBody {
  status: string;
  mode: 'full' | 'incremental';
  read: number;
  written: number;
  deleted: number;
  rejected: number;
  failures: unknown[];
}

describe('harvesting a Cairn instance on loopback (embedded mode, real Keycloak)', function () {
  this.timeout(120000);
  let alice: string;
  let bob: string;

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
    bob = (await userTokens('bob')).accessToken;
  });

  const register = async (target: TestApp, definition: Record<string, unknown>) => {
    const response = await request(target.app)
      .post('/catalogue/admin/sources')
      .set('Authorization', `Bearer ${alice}`)
      .send(definition);
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response;
  };
  const run = async (target: TestApp, id: string, query = ''): Promise<RunBody> => {
    const response = await request(target.app)
      .post(`/catalogue/admin/sources/${id}/run${query}`)
      .set('Authorization', `Bearer ${alice}`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as RunBody;
  };

  const variants: {
    name: string;
    source: (base: string) => Record<string, unknown>;
    /**
     * Milliseconds to wait after the source is loaded: OAI-PMH selects by datestamps of whole
     * seconds, so records written in the second an incremental run's window opens in are
     * harvested again (never missed); the wait keeps the source's records out of that second.
     */
    settleMs?: number;
  }[] = [
    {
      name: 'CSW 2.0.2, ISO 19139, POST',
      source: (base) => ({
        protocol: 'csw',
        url: `${base}/csw`,
        version: '2.0.2',
        outputSchema: 'gmd',
        method: 'POST',
      }),
    },
    {
      name: 'CSW 3.0, Dublin Core, GET',
      source: (base) => ({
        protocol: 'csw',
        url: `${base}/csw`,
        version: '3.0.0',
        outputSchema: 'dc',
        method: 'GET',
      }),
    },
    {
      name: 'OGC API – Records',
      source: (base) => ({ protocol: 'records', url: `${base}/collections/metadata:main/items` }),
    },
    { name: 'STAC API, GET', source: (base) => ({ protocol: 'stac', url: `${base}/search` }) },
    {
      name: 'STAC API, POST',
      source: (base) => ({ protocol: 'stac', url: `${base}/search`, method: 'POST' }),
    },
    {
      name: 'OAI-PMH, ISO 19139',
      source: (base) => ({ protocol: 'oai-pmh', url: `${base}/oai`, outputSchema: 'gmd' }),
      settleMs: 1100,
    },
    {
      name: 'OAI-PMH, Dublin Core',
      source: (base) => ({ protocol: 'oai-pmh', url: `${base}/oai`, outputSchema: 'dc' }),
      settleMs: 1100,
    },
  ];

  for (const variant of variants) {
    describe(variant.name, () => {
      let source: SourceCatalogue;
      let target: TestApp;
      before(async () => {
        source = await startSourceCatalogue(SOURCE_RECORDS);
        target = await createTarget();
        if (variant.settleMs) await new Promise((resolve) => setTimeout(resolve, variant.settleMs));
      });
      after(async () => {
        await source?.close();
        await target?.close();
      });

      it('harvests every record once, then incrementally nothing, then exactly the changes', async () => {
        await register(target, { id: 'remote', pageSize: 5, ...variant.source(source.base) });
        const first = await run(target, 'remote');
        assert.equal(first.mode, 'full');
        assert.equal(first.written, SOURCE_RECORDS);
        assert.equal(first.rejected, 0, JSON.stringify(first.failures));
        const sourceIds = await allIds(source.test);
        assert.deepEqual(await allIds(target), [...sourceIds, String(LOCAL.id)].sort());
        const before = await Promise.all(sourceIds.map((id) => target.backend.get(id)));

        const second = await run(target, 'remote');
        assert.equal(second.mode, 'incremental');
        assert.deepEqual([second.written, second.deleted, second.rejected], [0, 0, 0]);
        const after = await Promise.all(sourceIds.map((id) => target.backend.get(id)));
        assert.deepEqual(
          after.map((record) => record?.title),
          before.map((record) => record?.title),
        );

        const change = await changeSource(source);
        const third = await run(target, 'remote');
        assert.equal(third.mode, 'incremental');
        assert.deepEqual([third.written, third.deleted], [2, 1], JSON.stringify(third));
        assert.deepEqual(
          await allIds(target),
          [...(await allIds(source.test)), String(LOCAL.id)].sort(),
        );
        assert.equal((await target.backend.get(change.modified))?.title, change.title);
        assert.equal(await target.backend.get(change.deleted), null);
        assert.ok(await target.backend.get(change.added));

        const listed = await request(target.app)
          .get('/catalogue/admin/sources/remote')
          .set('Authorization', `Bearer ${alice}`);
        assert.equal(listed.status, 200);
        const state = listed.body as {
          recordCount: number;
          lastRun: { status: string; deleted: number };
        };
        assert.equal(state.recordCount, SOURCE_RECORDS);
        assert.deepEqual([state.lastRun.status, state.lastRun.deleted], ['completed', 1]);
      });

      it('a full run on demand rewrites every record and deletes nothing', async () => {
        const full = await run(target, 'remote', '?full=true');
        assert.equal(full.mode, 'full');
        assert.deepEqual([full.written, full.deleted], [SOURCE_RECORDS, 0]);
        assert.equal((await allIds(target)).length, SOURCE_RECORDS + 1);
      });
    });
  }

  describe('the source endpoints', () => {
    let target: TestApp;
    let source: SourceCatalogue;
    before(async () => {
      target = await createTarget();
      source = await startSourceCatalogue(3);
    });
    after(async () => {
      await target?.close();
      await source?.close();
    });

    it('deny by default: 401 without a token, 403 without the write role', async () => {
      const anonymous = await request(target.app).get('/catalogue/admin/sources');
      assert.equal(anonymous.status, 401);
      assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
      const forbidden = await request(target.app)
        .post('/catalogue/admin/sources')
        .set('Authorization', `Bearer ${bob}`)
        .send({
          id: 'x',
          protocol: 'records',
          url: `${source.base}/collections/metadata:main/items`,
        });
      assert.equal(forbidden.status, 403);
      const run = await request(target.app)
        .post('/catalogue/admin/sources/x/run')
        .set('Authorization', `Bearer ${bob}`);
      assert.equal(run.status, 403);
    });

    it('refuses bad definitions with a 400 naming the problem, and stores nothing', async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ id: 'a', protocol: 'gopher', url: 'http://127.0.0.1/' }, /protocol/],
        [{ id: 'a', protocol: 'csw' }, /url/],
        [{ id: 'a', protocol: 'csw', url: 'ftp://127.0.0.1/csw' }, /url/],
        [{ id: 'a', protocol: 'csw', url: 'http://user:pw@127.0.0.1/csw' }, /credentials/],
        [{ id: '../a', protocol: 'csw', url: 'http://127.0.0.1/csw' }, /id/],
        [{ id: 'a', protocol: 'csw', url: 'http://127.0.0.1/csw', pageSize: 0 }, /pageSize/],
        [{ id: 'a', protocol: 'csw', url: 'http://127.0.0.1/csw', surprise: 1 }, /surprise/],
        [
          {
            id: 'a',
            protocol: 'csw',
            url: 'http://127.0.0.1/csw',
            auth: { type: 'token-exchange' },
          },
          /audience/,
        ],
        [
          { id: 'a', protocol: 'csw', url: 'http://127.0.0.1/csw', intervalMinutes: 60 },
          /scaled mode/,
        ],
      ];
      for (const [body, problem] of cases) {
        const response = await request(target.app)
          .post('/catalogue/admin/sources')
          .set('Authorization', `Bearer ${alice}`)
          .send(body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.match(JSON.stringify(response.body), problem, JSON.stringify(response.body));
      }
      const text = await request(target.app)
        .post('/catalogue/admin/sources')
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'text/plain')
        .send('id=a');
      assert.equal(text.status, 400);
      const list = await request(target.app)
        .get('/catalogue/admin/sources')
        .set('Authorization', `Bearer ${alice}`);
      assert.deepEqual((list.body as { sources: unknown[] }).sources, []);
    });

    it('registers (201 + Location), refuses a taken id (409), replaces, lists, runs and deletes', async () => {
      const definition = {
        id: 'three',
        protocol: 'records',
        url: `${source.base}/collections/metadata:main/items`,
      };
      const created = await register(target, definition);
      assert.ok(String(created.headers.location).endsWith('/catalogue/admin/sources/three'));
      const again = await request(target.app)
        .post('/catalogue/admin/sources')
        .set('Authorization', `Bearer ${alice}`)
        .send(definition);
      assert.equal(again.status, 409);
      const mismatch = await request(target.app)
        .put('/catalogue/admin/sources/three')
        .set('Authorization', `Bearer ${alice}`)
        .send({ ...definition, id: 'other' });
      assert.equal(mismatch.status, 400);
      const replaced = await request(target.app)
        .put('/catalogue/admin/sources/three')
        .set('Authorization', `Bearer ${alice}`)
        .send({ ...definition, title: 'Three records' });
      assert.equal(replaced.status, 200);
      assert.equal((replaced.body as { title: string }).title, 'Three records');
      const ran = await run(target, 'three');
      assert.equal(ran.written, 3);
      const job = await request(target.app)
        .get(`/catalogue/admin/jobs/${(ran as unknown as { jobId: string }).jobId}`)
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(job.status, 200);
      assert.deepEqual(
        [(job.body as { queue: string }).queue, (job.body as { written: number }).written],
        ['harvest', 3],
      );
      const badFlag = await request(target.app)
        .post('/catalogue/admin/sources/three/run?full=maybe')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(badFlag.status, 400);
      const unknown = await request(target.app)
        .post('/catalogue/admin/sources/nothing/run')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(unknown.status, 404);
      const removed = await request(target.app)
        .delete('/catalogue/admin/sources/three')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(removed.status, 204);
      const gone = await request(target.app)
        .get('/catalogue/admin/sources/three')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(gone.status, 404);
      // Unregistering keeps the records the source contributed.
      assert.equal((await allIds(target)).length, 4);
    });

    it('an unreachable source is a 502 naming it, logged as a failed job, and deletes nothing', async () => {
      const port = await closedLoopbackPort();
      await register(target, {
        id: 'down',
        protocol: 'stac',
        url: `http://127.0.0.1:${port}/search`,
      });
      const before = await allIds(target);
      const response = await request(target.app)
        .post('/catalogue/admin/sources/down/run')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(response.status, 502);
      assert.match(JSON.stringify(response.body), /could not be reached/);
      assert.deepEqual(await allIds(target), before);
      const state = await request(target.app)
        .get('/catalogue/admin/sources/down')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal((state.body as { lastRun: { status: string } }).lastRun.status, 'failed');
    });
  });

  describe('protected sources (the source requires a token for its client)', () => {
    let target: TestApp;
    let source: SourceCatalogue;
    before(async () => {
      target = await createTarget();
      source = await startSourceCatalogue(4, { issuer: ISSUER, clientId: CLIENT.catalogue });
    });
    after(async () => {
      await target?.close();
      await source?.close();
    });

    it('without auth the source refuses (502 naming HTTP 401) and nothing is written', async () => {
      await register(target, { id: 'open', protocol: 'stac', url: `${source.base}/search` });
      const response = await request(target.app)
        .post('/catalogue/admin/sources/open/run')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(response.status, 502);
      assert.match(JSON.stringify(response.body), /HTTP 401/);
      assert.equal((await allIds(target)).length, 1);
    });

    it('client credentials with a minimal scope', async () => {
      await register(target, {
        id: 'machine',
        protocol: 'csw',
        url: `${source.base}/csw`,
        auth: { type: 'client-credentials', scope: ['ingest'] },
      });
      const ran = await run(target, 'machine');
      assert.equal(ran.written, 4);
    });

    it('token exchange: the token sent carries the source as its only audience', async () => {
      const tokens = defined(
        createTokenClient(TOKEN_ENDPOINT, {
          clientId: CLIENT.worker,
          clientSecret: WORKER_SECRET,
        }),
        'the token client',
      );
      const client = new SourceClient({
        auth: { type: 'token-exchange', audience: CLIENT.catalogue },
        tokens,
      });
      const header = await client.authorization();
      assert.ok(header?.startsWith('Bearer '));
      assert.deepEqual(audienceOf(String(header).slice('Bearer '.length)), [CLIENT.catalogue]);
      source.audiences.length = 0;

      await register(target, {
        id: 'exchanged',
        protocol: 'records',
        url: `${source.base}/collections/metadata:main/items`,
        auth: { type: 'token-exchange', audience: CLIENT.catalogue },
      });
      const ran = await run(target, 'exchanged');
      assert.equal(ran.written, 4);
      // Every request the source received carried a token for it alone.
      assert.ok(source.audiences.length > 0);
      assert.ok(
        source.audiences.every((aud) => aud === CLIENT.catalogue),
        String(source.audiences),
      );
    });

    it('a token-exchange audience the provider does not know is a 502 naming the refusal', async () => {
      await register(target, {
        id: 'wrong-audience',
        protocol: 'records',
        url: `${source.base}/collections/metadata:main/items`,
        auth: { type: 'token-exchange', audience: 'no-such-client' },
      });
      const response = await request(target.app)
        .post('/catalogue/admin/sources/wrong-audience/run')
        .set('Authorization', `Bearer ${alice}`);
      assert.equal(response.status, 502);
      assert.match(JSON.stringify(response.body), /no token for the source/);
    });
  });
});
