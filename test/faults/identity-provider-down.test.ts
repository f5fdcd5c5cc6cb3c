/**
 * Fault: the identity provider's JWKS is unreachable. The API process (embedded SQLite, so a
 * write applies at once) reaches the shared Keycloak's key set through a relay the test
 * controls; tokens come from Keycloak directly. While the keys cannot be fetched — nothing
 * listening, or a provider that accepts connections and never answers — every protected
 * endpoint answers 503 with Retry-After to a genuine editor token, and nothing is written;
 * public reads on every protocol are unaffected. Keys cached before an outage are not trusted
 * past their cache time. When the provider is back, the same process accepts the token.
 */
import { strict as assert } from 'node:assert';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { CLIENT, ISSUER, KEYCLOAK_URL, REALM } from '../integration/keycloak/keycloak-support.js';
import { startApiProcess, type ApiHandle } from '../../scripts/processes/cairn-process.js';
import { EditorToken } from './support/editor-token.js';
import { PROBES, FaultLoad } from './support/fault-load.js';
import { removeTestFolder } from './support/scaled-catalogue.js';
import { TcpRelay } from './support/tcp-relay.js';
import { defined } from '../support/defined.js';

const SEEDED = 30;
const ITEMS = '/catalogue/collections/metadata:main/items';
/** The names of the protected requests below. */
const ALL = ['create', 'replace', 'delete', 'bulk ingest', 'job log'];
const EXISTING_ID = String(defined([...generateRecords(1, 7)][0], 'the generated record').id);

/** A record (GeoJSON Feature) that is not in the catalogue. */
const newRecord = (index: number): Record<string, unknown> =>
  [...generateRecords(1, 4242, index)][0] as unknown as Record<string, unknown>;

/** Every protected endpoint, as a request with the given bearer token. */
function protectedRequests(
  token: string,
  index: number,
): { name: string; init: RequestInit; path: string }[] {
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const replacement = { ...[...generateRecords(1, 7)][0], id: EXISTING_ID };
  return [
    {
      name: 'create',
      path: ITEMS,
      init: { method: 'POST', headers: json, body: JSON.stringify(newRecord(index)) },
    },
    {
      name: 'replace',
      path: `${ITEMS}/${EXISTING_ID}`,
      init: { method: 'PUT', headers: json, body: JSON.stringify(replacement) },
    },
    { name: 'delete', path: `${ITEMS}/${EXISTING_ID}`, init: { method: 'DELETE', headers: auth } },
    {
      name: 'bulk ingest',
      path: '/catalogue/admin/ingest',
      init: {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-ndjson' },
        body: JSON.stringify(newRecord(index + 1)),
      },
    },
    { name: 'job log', path: '/catalogue/admin/jobs', init: { headers: auth } },
  ];
}

/** A token signed by someone else's key, claiming to be an editor's token. */
function forgedToken(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'RS256', typ: 'JWT', kid: 'not-a-provider-key' })}.${encode({
    iss: ISSUER,
    azp: CLIENT.catalogue,
    aud: CLIENT.catalogue,
    typ: 'Bearer',
    exp: now + 300,
    iat: now,
    resource_access: { [CLIENT.catalogue]: { roles: ['editor'] } },
  })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

describe('fault: the identity provider (JWKS) is unreachable', function () {
  this.timeout(300_000);
  let token: EditorToken;
  let relay: TcpRelay;
  let directory: string;
  let api: ApiHandle;
  let requestIndex = 0;

  before(async () => {
    token = await EditorToken.obtain();
    const keycloak = new URL(KEYCLOAK_URL);
    relay = await TcpRelay.create({ host: keycloak.hostname, port: Number(keycloak.port) });
    directory = mkdtempSync(join(tmpdir(), 'cairn-faults-idp-'));
    const sqlitePath = join(directory, 'cairn.sqlite');
    const backend = new SqliteBackend({ path: sqlitePath });
    await backend.init();
    const loaded = await ingestDocuments(
      backend,
      [...generateRecords(SEEDED, 7)].map((record, i) => ({
        name: `seed ${i}`,
        content: JSON.stringify(record),
      })),
    );
    assert.deepEqual(loaded.rejected, []);
    assert.equal(loaded.written, SEEDED);
    await backend.close();
    api = await startApiProcess(
      {
        SQLITE_PATH: sqlitePath,
        WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
        AUTH_ISSUER_URL: ISSUER,
        AUTH_CLIENT_ID: CLIENT.catalogue,
        AUTH_JWKS_URL: `http://127.0.0.1:${relay.port}/realms/${REALM}/protocol/openid-connect/certs`,
        // Keys are trusted for one second after a fetch, and a retry is always allowed.
        AUTH_JWKS_CACHE_SECONDS: '1',
        AUTH_JWKS_REFETCH_COOLDOWN_SECONDS: '0',
        // No back-off after a failed fetch: each request here must reach the relay (the
        // back-off itself is test/integration/auth/jwks-endpoint.test.ts).
        AUTH_JWKS_FAILURE_COOLDOWN_SECONDS: '0',
      },
      join(directory, 'api.log'),
    );
  });

  after(async function () {
    await api?.process.stop();
    await relay?.close();
    token?.stop();
    if (directory) removeTestFolder(directory, this.test?.parent);
  });

  const recordCount = async (): Promise<number> => {
    const response = await fetch(`${api.origin}${ITEMS}?limit=1`);
    return ((await response.json()) as { numberMatched: number }).numberMatched;
  };

  /** Sends the protected requests with `bearer`; returns "name status code" per request. */
  async function sendProtected(bearer: string, names = ALL): Promise<string[]> {
    requestIndex += 2;
    const answers: string[] = [];
    const requests = protectedRequests(bearer, requestIndex).filter((r) => names.includes(r.name));
    for (const { name, path, init } of requests) {
      const response = await fetch(`${api.origin}${path}`, init);
      const text = await response.text();
      const code = response.headers.get('content-type')?.includes('json')
        ? (JSON.parse(text) as { code?: string }).code
        : undefined;
      const retryAfter =
        response.status === 503 ? ` retry-after=${response.headers.get('retry-after')}` : '';
      answers.push(`${name} ${response.status} ${code ?? ''}${retryAfter}`.trim());
    }
    return answers;
  }

  const unavailable = (names: string[]) =>
    names.map((name) => `${name} 503 AUTH_PROVIDER_UNAVAILABLE retry-after=5`);

  /** Every public read answers normally (the load's probes, one round). */
  async function assertReadsWork(): Promise<void> {
    const load = new FaultLoad({
      origin: api.origin,
      token: () => token.current,
      writeLoops: 0,
      queryLoops: 1,
    });
    load.start();
    await load.until((o) => o.length >= PROBES.length, 60_000, 'one read per protocol');
    await load.stop();
    assert.deepEqual(
      load.outcomes
        .filter((o) => o.verdict !== 'ok')
        .map((o) => `${o.protocol} ${o.status} ${o.problem ?? ''}`),
      [],
      'public reads',
    );
  }

  it('answers 503 to a genuine token while nothing listens, writes nothing, and serves reads', async () => {
    await relay.set('refuse');
    assert.deepEqual(await sendProtected(token.current), unavailable(ALL));
    const forged = await sendProtected(forgedToken());
    assert.ok(
      forged.every((answer) => / (401|503) /.test(answer)),
      forged.join('; '),
    );
    const anonymous = await fetch(`${api.origin}/catalogue/admin/ingest`, {
      method: 'POST',
      body: '{}',
    });
    assert.equal(anonymous.status, 401, 'no token: 401, never accepted');
    assert.equal(await recordCount(), SEEDED);
    await assertReadsWork();
  });

  it('answers 503 while the provider accepts connections but never answers', async () => {
    await relay.set('hang');
    assert.deepEqual(await sendProtected(token.current, ['create']), unavailable(['create']));
    assert.equal(await recordCount(), SEEDED);
    await assertReadsWork();
  });

  it('accepts the token when the provider is back, without a restart; stale keys are not trusted', async () => {
    await relay.set('forward');
    const response = await fetch(
      `${api.origin}${ITEMS}`,
      defined(protectedRequests(token.current, 1000)[0], 'the first protected request').init,
    );
    assert.equal(response.status, 201, await response.text());
    assert.equal(await recordCount(), SEEDED + 1);

    await relay.set('refuse');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // past the one-second key cache
    assert.deepEqual(await sendProtected(token.current), unavailable(ALL));
    assert.equal(await recordCount(), SEEDED + 1);
    assert.ok(api.process.running, api.process.logTail());
  });
});
