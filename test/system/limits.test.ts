/**
 * Size limits and XML bombs over HTTP, against the API's own HTTP server on a loopback port.
 *
 * - Every body kind (JSON, XML, NDJSON, form; with or without Content-Length; gzip-compressed)
 *   above BODY_LIMIT_BYTES is a 413, and a URL above URL_LIMIT_BYTES a 414, each in the
 *   protocol's own error format (`{code, description}` JSON or an ows:ExceptionReport).
 * - Every XML entry point (CSW POST, CSW-T documents, FES constraints in KVP, item create and
 *   replace, bulk ingest) refuses each bomb of test/support/fuzz-bombs.ts with a 400 naming
 *   it, fetches nothing (a loopback listener stands in for the external entity's server), and
 *   the process heap does not balloon.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { createHttpServer } from '../../services/api/http-server.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  checkCswAnswer,
  checkJsonAnswer,
  listen,
  send,
  type Listening,
} from '../support/fuzz-http.js';
import { xmlBombs } from '../support/fuzz-bombs.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const CSW = '/catalogue/csw';
const BODY_LIMIT = 64 * 1024;
const URL_LIMIT = 2048;

function authEnvironment(prefix: string): Record<string, string> {
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    WORKER_INGEST_LOG_PATH: join(mkdtempSync(join(tmpdir(), prefix)), 'ingest-log.sqlite'),
  };
}

async function serve(test: TestApp): Promise<Listening> {
  return listen(createHttpServer(test.app, test.config));
}

describe('request size limits (413, 414) in each protocol’s format', function () {
  this.timeout(60_000);
  let test: TestApp;
  let http: Listening;
  let token: string;
  const url = (path: string): string => `${http.baseUrl}${path}`;
  const big = 'x'.repeat(BODY_LIMIT + 1024);

  before(async () => {
    await requireKeycloak();
    token = (await userTokens('alice')).accessToken;
    test = await createTestApp(3, {
      ...authEnvironment('cairn-limits-'),
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      URL_LIMIT_BYTES: String(URL_LIMIT),
    });
    http = await serve(test);
  });
  after(async () => {
    await http?.close();
    await test?.close();
  });

  const expectJson = async (
    path: string,
    init: Parameters<typeof send>[1],
    status: number,
    code: string,
  ): Promise<void> => {
    const answer = await send(url(path), init);
    expect(checkJsonAnswer(path, answer)).to.equal(`${status} ${code}`);
  };
  const expectCsw = async (init: Parameters<typeof send>[1], status: number): Promise<void> => {
    const answer = await send(url(CSW), init);
    expect(checkCswAnswer(CSW, answer)).to.equal(`${status} NoApplicableCode`);
    expect(answer.body).to.match(/larger than the configured limit/);
  };

  it('JSON bodies: STAC POST /search and Records POST …/items → 413 JSON', async () => {
    const body = JSON.stringify({ limit: 1, ids: [big] });
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
    await expectJson('/catalogue/search', init, 413, 'PAYLOAD_TOO_LARGE');
    await expectJson(ITEMS, init, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a chunked JSON body without Content-Length → 413 JSON', async () => {
    const chunks = [JSON.stringify({ ids: [big] })];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as unknown as Parameters<typeof send>[1];
    await expectJson('/catalogue/search', init, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a gzip bomb (small on the wire, 10 MB inflated) → 413, counted after inflating', async () => {
    const body = gzipSync(Buffer.from(`{"ids":["${'0'.repeat(10_000_000)}"]}`));
    expect(body.length).to.be.below(BODY_LIMIT);
    const init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body,
    };
    await expectJson('/catalogue/search', init, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('CSW POST: XML and form bodies → 413 ows:ExceptionReport', async () => {
    const xml = `<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" service="CSW" version="3.0.0"><!--${big}--></csw:GetRecords>`;
    await expectCsw(
      { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: xml },
      413,
    );
    const form = `service=CSW&version=3.0.0&request=GetRecords&q=${big}`;
    await expectCsw(
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form,
      },
      413,
    );
  });

  it('writes: NDJSON, JSON and XML over the limit → 413 with a token, 401 without (body unread)', async () => {
    const line = JSON.stringify({ type: 'Feature', id: 'big', properties: { title: big } });
    for (const [type, body] of [
      ['application/x-ndjson', `${line}\n${line}`],
      ['application/json', line],
      ['application/xml', `<x>${big}</x>`],
    ] as const) {
      const headers = { 'Content-Type': type };
      await expectJson(
        '/catalogue/admin/ingest',
        { method: 'POST', headers, body },
        401,
        'UNAUTHORIZED',
      );
      const authorised = { ...headers, Authorization: `Bearer ${token}` };
      await expectJson(
        '/catalogue/admin/ingest',
        { method: 'POST', headers: authorised, body },
        413,
        'PAYLOAD_TOO_LARGE',
      );
      await expectJson(
        `${ITEMS}/big`,
        { method: 'PUT', headers: authorised, body },
        413,
        'PAYLOAD_TOO_LARGE',
      );
    }
    expect(await test.backend.get('big')).to.equal(null);
  });

  it('a URL over URL_LIMIT_BYTES → 414 (Records and STAC JSON, CSW ExceptionReport); just under it is served', async () => {
    const long = 'a'.repeat(URL_LIMIT);
    await expectJson(`${ITEMS}?q=${long}`, {}, 414, 'URI_TOO_LONG');
    await expectJson(`/catalogue/search?ids=${long}`, {}, 414, 'URI_TOO_LONG');
    const csw = await send(url(`${CSW}?service=CSW&version=3.0.0&request=GetRecords&q=${long}`));
    expect(checkCswAnswer(CSW, csw)).to.equal('414 NoApplicableCode');
    expect(csw.body).to.match(/limit of 2048 bytes/);
    const path = `${ITEMS}?q=`;
    const fits = await send(url(`${path}${'a'.repeat(URL_LIMIT - path.length)}`), {
      headers: { Accept: 'application/json' },
    });
    expect(fits.status).to.equal(200);
  });
});

describe('the search body limit (SEARCH_BODY_LIMIT_BYTES), below the write limit', function () {
  this.timeout(60_000);
  const SEARCH_LIMIT = 32 * 1024;
  let test: TestApp;
  let http: Listening;
  let token: string;
  const url = (path: string): string => `${http.baseUrl}${path}`;

  before(async () => {
    await requireKeycloak();
    token = (await userTokens('alice')).accessToken;
    test = await createTestApp(3, {
      ...authEnvironment('cairn-search-limit-'),
      BODY_LIMIT_BYTES: String(128 * 1024),
      SEARCH_BODY_LIMIT_BYTES: String(SEARCH_LIMIT),
    });
    http = await serve(test);
  });
  after(async () => {
    await http?.close();
    await test?.close();
  });

  it('refuses a larger search body with a 413 naming the setting; a smaller one is searched', async () => {
    const search = (id: string) =>
      send(url('/catalogue/search'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ids: [id] }),
      });
    const refused = await search('x'.repeat(SEARCH_LIMIT + 1024));
    expect(checkJsonAnswer('/catalogue/search', refused)).to.equal('413 PAYLOAD_TOO_LARGE');
    expect(refused.body).to.contain('SEARCH_BODY_LIMIT_BYTES');
    const searched = await search('x'.repeat(SEARCH_LIMIT - 1024));
    expect(searched.status, searched.body.slice(0, 300)).to.equal(200);
    expect(JSON.parse(searched.body).numberMatched).to.equal(0);
  });

  it('keeps BODY_LIMIT_BYTES for writes: a record larger than the search limit is written', async () => {
    const title = 'y'.repeat(SEARCH_LIMIT + 1024);
    const written = await send(url(`${ITEMS}/large`), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ type: 'Feature', id: 'large', geometry: null, properties: { title } }),
    });
    expect(written.status, written.body.slice(0, 300)).to.be.oneOf([200, 201]);
    expect((await test.backend.get('large'))?.title).to.equal(title);
  });
});

describe('XML bombs at every XML entry point over HTTP', function () {
  this.timeout(180_000);
  let test: TestApp;
  let http: Listening;
  let token: string;
  let outOfBand: Server;
  let outOfBandUrl: string;
  let outOfBandHits = 0;
  const url = (path: string): string => `${http.baseUrl}${path}`;

  before(async () => {
    await requireKeycloak();
    token = (await userTokens('alice')).accessToken;
    test = await createTestApp(3, authEnvironment('cairn-bombs-'));
    http = await serve(test);
    // Where the external entities point: the test fails if anything ever asks it for something.
    outOfBand = createServer((_request, response) => {
      outOfBandHits += 1;
      response.end('<!ENTITY x "pwned">');
    });
    await new Promise<void>((resolve) => outOfBand.listen(0, '127.0.0.1', resolve));
    outOfBandUrl = `http://127.0.0.1:${(outOfBand.address() as AddressInfo).port}/evil.dtd`;
  });
  after(async () => {
    await http?.close();
    await test?.close();
    await new Promise((resolve) => outOfBand?.close(resolve));
  });

  const CSW_RECORD =
    '<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier>bomb</dc:identifier><dc:title>t</dc:title></csw:Record>';
  const GET_RECORDS =
    '<csw:GetRecords xmlns:csw="http://www.opengis.net/cat/csw/3.0" service="CSW" version="3.0.0"><csw:Query typeNames="csw:Record"/></csw:GetRecords>';
  const TRANSACTION = `<csw:Transaction xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" service="CSW" version="2.0.2"><csw:Insert>${CSW_RECORD}</csw:Insert></csw:Transaction>`;
  const FILTER =
    '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo><fes:ValueReference>dc:title</fes:ValueReference><fes:Literal>t</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>';
  const xmlPost = (method: string, path: string, authorised: boolean) => (body: string) =>
    send(url(path), {
      method,
      headers: {
        'Content-Type': 'application/xml',
        Accept: 'application/json',
        ...(authorised ? { Authorization: `Bearer ${token}` } : {}),
      },
      body,
    });
  const form = (body: string) =>
    send(url(CSW), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        service: 'CSW',
        version: '3.0.0',
        request: 'GetRecords',
        typeNames: 'csw:Record',
        constraintLanguage: 'FILTER',
        constraint_language_version: '2.0.0',
        constraint: body,
      }).toString(),
    });

  const ENTRY_POINTS = [
    {
      name: 'CSW POST GetRecords',
      root: GET_RECORDS,
      send: xmlPost('POST', CSW, false),
      csw: true,
    },
    {
      name: 'CSW POST Transaction',
      root: TRANSACTION,
      send: xmlPost('POST', CSW, true),
      csw: true,
    },
    { name: 'CSW FES constraint (KVP form)', root: FILTER, send: form, csw: true },
    {
      name: 'POST …/items (XML create)',
      root: CSW_RECORD,
      send: xmlPost('POST', ITEMS, true),
      csw: false,
    },
    {
      name: 'PUT …/items/bomb (XML)',
      root: CSW_RECORD,
      send: xmlPost('PUT', `${ITEMS}/bomb`, true),
      csw: false,
    },
    {
      name: 'bulk ingest (XML)',
      root: CSW_RECORD,
      send: xmlPost('POST', '/catalogue/admin/ingest', true),
      csw: false,
    },
  ];

  for (const entry of ENTRY_POINTS) {
    it(`${entry.name}: refuses every bomb with a 400 naming it`, async () => {
      const heapBefore = process.memoryUsage().heapUsed;
      for (const bomb of xmlBombs(outOfBandUrl)) {
        const answer = await entry.send(bomb.build(entry.root));
        const outcome = entry.csw
          ? checkCswAnswer(entry.name, answer)
          : checkJsonAnswer(entry.name, answer);
        expect(outcome, `${bomb.name}: ${answer.body.slice(0, 300)}`).to.match(/^400 /);
        expect(answer.body, `${bomb.name}: ${answer.body.slice(0, 400)}`).to.match(bomb.names);
        expect(answer.body, bomb.name).not.to.match(/lollol|pwned|root:/);
      }
      expect(process.memoryUsage().heapUsed - heapBefore, 'heap growth').to.be.below(
        200 * 1024 * 1024,
      );
      expect(outOfBandHits, 'requests to the external entity server').to.equal(0);
      expect(await test.backend.get('bomb')).to.equal(null);
    });
  }
});
