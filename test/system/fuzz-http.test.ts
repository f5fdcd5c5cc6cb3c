/**
 * Fuzzing over HTTP: every public entry point of an app on SQLite (a real loopback port, so
 * Node's HTTP parser, Express, the OpenAPI validator, the protocol parsers, the backend and
 * the presenters all take part) gets grammar-aware near-valid requests with random corruption.
 * Every answer must be a success or a client error in the protocol's own format (OGC API /
 * STAC `{code, description}` JSON, CSW/OpenSearch ows:ExceptionReport) — never a 5xx, a crash
 * or a hang. The write endpoints get garbage bodies: without a token always 401 (the body is
 * not read), with a real Keycloak token a 4xx naming the problem, and nothing is written.
 *
 * Run counts scale with CAIRN_FUZZ_SCALE; CAIRN_FUZZ_SEED replays a run (test/support/fuzz-settings.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { describeRun, fuzzParameters, Tally } from '../support/fuzz-settings.js';
import { mutateJsonValue, mutateString } from '../support/fuzz-mutations.js';
import {
  checkCswAnswer,
  checkJsonAnswer,
  listen,
  percentEncode,
  queryString,
  send,
  type Answer,
  type Listening,
} from '../support/fuzz-http.js';
import {
  cql2Json,
  cswKvpQuery,
  cswXmlRequest,
  recordsItemsQuery,
  stacSearchBody,
  stacSearchQuery,
} from '../support/fuzz-requests.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { hostileSizeRequest, type SizedRequest } from '../support/fuzz-sizes.js';
import { defined } from '../support/defined.js';

/** Default requests per entry point (scaled by CAIRN_FUZZ_SCALE). */
const RUNS = 150;
const ITEMS = '/catalogue/collections/metadata:main/items';
const CSW = '/catalogue/csw';

/** Runs an async property over HTTP and prints its outcome counts. */
async function fuzz<T>(
  name: string,
  inputs: fc.Arbitrary<T>,
  request: (input: T) => Promise<string>,
  runs = RUNS,
): Promise<Tally> {
  const tally = new Tally();
  await fc.assert(
    fc.asyncProperty(inputs, async (input) => tally.add(await request(input))),
    fuzzParameters(runs),
  );
  console.log(describeRun(name, tally.total, tally.counts));
  return tally;
}

describe('HTTP entry points under fuzzing (SQLite)', function () {
  this.timeout(300_000);
  let test: TestApp;
  let http: Listening;
  let url: (path: string) => string;

  before(async () => {
    await requireKeycloak();
    const directory = mkdtempSync(join(tmpdir(), 'cairn-fuzz-http-'));
    test = await createTestApp(40, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
      BODY_LIMIT_BYTES: String(256 * 1024),
    });
    http = await listen(test.app);
    url = (path) => `${http.baseUrl}${path}`;
  });
  after(async () => {
    await http?.close();
    await test?.close();
  });

  const json = { Accept: 'application/json' };

  it('OGC API – Records GET …/items (q, bbox, datetime, limit, offset, sortby, filter, filter-lang)', async () => {
    const tally = await fuzz('Records GET items', recordsItemsQuery, async (pairs) => {
      const path = `${ITEMS}${queryString(pairs)}`;
      return checkJsonAnswer(`GET ${path}`, await send(url(path), { headers: json }));
    });
    expect(tally.counts.get('200') ?? 0).to.be.greaterThan(0);
  });

  it('OGC API – Records POST …/items with CQL2 JSON bodies (and garbage)', async () => {
    const body = fc.oneof(
      { weight: 3, arbitrary: cql2Json.map((value) => JSON.stringify({ filter: value })) },
      { weight: 2, arbitrary: cql2Json.map((value) => JSON.stringify(value) ?? 'null') },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom('{"op":"=","args":[{"property":"title"},"x"]}')
          .chain(mutateString),
      },
    );
    await fuzz('Records POST items', fc.tuple(body, fc.boolean()), async ([text, withQuery]) => {
      const path = `${ITEMS}${withQuery ? '?limit=3&filter-lang=cql2-json' : ''}`;
      const answer = await send(url(path), {
        method: 'POST',
        headers: { ...json, 'Content-Type': 'application/json' },
        body: text,
      });
      return checkJsonAnswer(`POST ${path} ${text.slice(0, 200)}`, answer);
    });
  });

  it('OGC API – Records single items and other paths with hostile ids and encodings', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 12 }).map(percentEncode),
      fc.constantFrom(
        '%',
        '%E0%A4%A',
        '%00',
        '..%2F..%2Fetc%2Fpasswd',
        '%2e%2e',
        '%C0%AF',
        'a%20b',
        '~',
        '%FF',
        '%uD800',
      ),
    );
    await fuzz(
      'Records paths',
      fc.tuple(
        fc.constantFrom(`${ITEMS}/`, '/catalogue/collections/', '/catalogue/'),
        segment,
        fc.constantFrom('', '?f=json', '?f=xml', '?f=stac', '?f=html', '?f=%'),
      ),
      async ([prefix, id, query]) => {
        const path = `${prefix}${id}${query}`;
        const answer = await send(url(path), { headers: json });
        if (query === '?f=html' && answer.status < 500) return `${answer.status} html`;
        return checkJsonAnswer(`GET ${path}`, answer);
      },
    );
  });

  it('STAC API GET /search', async () => {
    const tally = await fuzz('STAC GET search', stacSearchQuery, async (pairs) => {
      const path = `/catalogue/search${queryString(pairs)}`;
      return checkJsonAnswer(`GET ${path}`, await send(url(path), { headers: json }));
    });
    expect(tally.counts.get('200') ?? 0).to.be.greaterThan(0);
  });

  it('STAC API POST /search (JSON bodies, mutated, and garbage)', async () => {
    const body = fc.oneof(
      { weight: 4, arbitrary: stacSearchBody.map((value) => JSON.stringify(value) ?? 'null') },
      { weight: 1, arbitrary: fc.constantFrom('{"limit":2,"bbox":[0,0,1,1]}').chain(mutateString) },
    );
    await fuzz('STAC POST search', body, async (text) => {
      const answer = await send(url('/catalogue/search'), {
        method: 'POST',
        headers: { ...json, 'Content-Type': 'application/json' },
        body: text,
      });
      return checkJsonAnswer(`POST /catalogue/search ${text.slice(0, 300)}`, answer);
    });
  });

  it('CSW GET with KVP (2.0.2 and 3.0, OpenSearch mode included)', async () => {
    const tally = await fuzz('CSW GET', cswKvpQuery, async (pairs) => {
      const path = `${CSW}${queryString(pairs)}`;
      return checkCswAnswer(`GET ${path}`, await send(url(path)));
    });
    expect(tally.counts.get('200') ?? 0).to.be.greaterThan(0);
  });

  it('CSW POST with XML requests (2.0.2 and 3.0) and with forms', async () => {
    const input = fc.oneof(
      { weight: 3, arbitrary: cswXmlRequest().map((body) => ['application/xml', body] as const) },
      {
        weight: 1,
        arbitrary: cswKvpQuery.map(
          (pairs) => ['application/x-www-form-urlencoded', queryString(pairs).slice(1)] as const,
        ),
      },
    );
    const tally = await fuzz('CSW POST', input, async ([type, body]) => {
      const answer = await send(url(CSW), {
        method: 'POST',
        headers: { 'Content-Type': type },
        body,
      });
      return checkCswAnswer(`POST ${CSW} (${type}) ${body.slice(0, 400)}`, answer);
    });
    expect(tally.counts.get('200') ?? 0).to.be.greaterThan(0);
  });

  it('OpenSearch mode and description (Geo, Time and EO parameters)', async () => {
    const value = fc.oneof(
      fc.constantFrom(
        '52',
        '-200',
        '4,52',
        '1e999',
        '[0,10]',
        ']5',
        '{1,2}',
        '2020-01-01',
        '',
        'POINT(4 52)',
        'climate',
      ),
      fc.string({ maxLength: 8 }),
    );
    const names = fc.constantFrom(
      'q',
      'bbox',
      'geometry',
      'lat',
      'lon',
      'radius',
      'relation',
      'start',
      'end',
      'timeRelation',
      'recordIds',
      'startIndex',
      'count',
      'searchTerms',
      'geo:box',
      'eo:cloudCover',
      'eo:snowCover',
      'eo:orbitNumber',
      'eo:platform',
      'outputFormat',
      'httpAccept',
    );
    const pairs = fc.array(fc.tuple(names, value), { maxLength: 5 });
    await fuzz('OpenSearch', fc.tuple(pairs, fc.boolean()), async ([list, description]) => {
      const path = description
        ? `/catalogue/opensearch${queryString(list)}`
        : `${CSW}${queryString([['service', 'CSW'], ['version', '3.0.0'], ['mode', 'opensearch'], ...list])}`;
      return checkCswAnswer(`GET ${path}`, await send(url(path)));
    });
  });

  describe('write endpoints with garbage bodies', () => {
    const record = defined([...generateRecords(1, 5, 90_000)][0], 'the generated record');
    const bodies = fc.oneof(
      {
        weight: 2,
        arbitrary: mutateJsonValue(record).map(
          (value) => ['application/json', JSON.stringify(value) ?? 'null'] as const,
        ),
      },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 60 }).map((text) => ['application/json', text] as const),
      },
      { weight: 1, arbitrary: cswXmlRequest().map((text) => ['application/xml', text] as const) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(JSON.stringify(record))
          .chain(mutateString)
          .map((text) => ['application/x-ndjson', `${text}\n${text}`] as const),
      },
    );
    const routes = fc.constantFrom<[string, string]>(
      ['POST', '/catalogue/admin/ingest'],
      ['PUT', `${ITEMS}/${encodeURIComponent(String(record.id))}`],
      ['PUT', `${ITEMS}/x`],
      ['DELETE', `${ITEMS}/x`],
    );

    const count = async (): Promise<number> => (await test.backend.health()).records ?? -1;

    it('without a token: 401 with a Bearer challenge, whatever the body', async () => {
      const before = await count();
      await fuzz(
        'writes without a token',
        fc.tuple(routes, bodies),
        async ([[method, path], [type, body]]) => {
          const answer: Answer = await send(url(path), {
            method,
            headers: { ...json, 'Content-Type': type },
            body,
          });
          if (answer.status !== 401)
            throw new Error(
              `${method} ${path} without a token → ${answer.status}: ${answer.body.slice(0, 200)}`,
            );
          return checkJsonAnswer(`${method} ${path}`, answer);
        },
      );
      expect(await count()).to.equal(before);
    });

    it('with the write role: a 4xx naming the problem and nothing written', async () => {
      // A fresh token: long (scaled-up) runs outlive an access token.
      const token = (await userTokens('alice')).accessToken;
      const before = await count();
      const tally = await fuzz(
        'writes with a token',
        fc.tuple(
          routes.filter(([method]) => method !== 'DELETE'),
          bodies,
        ),
        async ([[method, path], [type, body]]) => {
          const answer = await send(url(path), {
            method,
            headers: { ...json, 'Content-Type': type, Authorization: `Bearer ${token}` },
            body,
          });
          if (answer.status === 401 || answer.status === 403)
            throw new Error(`the token was refused: ${answer.body.slice(0, 200)}`);
          // A mutant may still be a valid record; then the write succeeds and is undone.
          if (answer.status < 300) {
            for (const written of (JSON.parse(answer.body) as { records: { id: string }[] })
              .records)
              await test.backend.delete([written.id]);
            return `${answer.status} written and removed`;
          }
          return checkJsonAnswer(`${method} ${path} ${body.slice(0, 200)}`, answer);
        },
      );
      expect(await count()).to.equal(before);
      expect([...tally.counts.keys()].some((key) => key.startsWith('400'))).to.equal(true);
    });
  });
});

describe('HTTP entry points under hostile sizes (SQLite)', function () {
  this.timeout(600_000);
  /** The query time budget of this app. */
  const BUDGET_MS = 3000;
  let test: TestApp;
  let http: Listening;

  before(async () => {
    test = await createTestApp(300, { QUERY_TIME_BUDGET_MS: String(BUDGET_MS) });
    http = await listen(test.app);
  });
  after(async () => {
    await http?.close();
    await test?.close();
  });

  /**
   * The budget's own answer: a 503 that names QUERY_TIME_BUDGET_MS, in the protocol's format.
   * Whether a query reaches the budget depends on the machine's load, so both outcomes pass;
   * what may not happen is a query that outruns the budget without being cancelled (the
   * request would then hang until send's limit) or any other 5xx.
   */
  function budgetCancellation(request: SizedRequest, answer: Answer): string | undefined {
    if (answer.status !== 503) return undefined;
    const label = `${request.label}: 503 ${answer.body.slice(0, 300)}`;
    if (request.protocol === 'csw') {
      expect(answer.body, label)
        .to.contain('ExceptionReport')
        .and.to.contain('QUERY_TIME_BUDGET_MS');
    } else {
      const error = JSON.parse(answer.body) as { code?: string; description?: string };
      expect(error.code, label).to.equal('QUERY_TIMEOUT');
      expect(error.description, label).to.contain(`${BUDGET_MS} ms`);
    }
    return '503 QUERY_TIMEOUT';
  }

  it("arrays, geometry parts, depth, operands and words around and beyond the limits: no 5xx but the budget's 503, no hang", async () => {
    let slowest = 0;
    const tally = await fuzz(
      'hostile sizes',
      hostileSizeRequest,
      async (request) => {
        const started = performance.now();
        const answer = await send(`${http.baseUrl}${request.path}`, request.init);
        slowest = Math.max(slowest, performance.now() - started);
        return (
          budgetCancellation(request, answer) ??
          (request.protocol === 'csw'
            ? checkCswAnswer(request.label, answer)
            : checkJsonAnswer(request.label, answer))
        );
      },
      60,
    );
    // The wall time includes reading and parsing megabyte bodies outside the budget, and
    // waiting for the CPU on a loaded machine: it is shown, not asserted.
    console.log(`      slowest answer: ${Math.round(slowest)} ms (budget ${BUDGET_MS} ms)`);
    expect(tally.counts.get('200') ?? 0).to.be.greaterThan(0);
    expect(tally.counts.get('400 QUERY_LIMIT_EXCEEDED') ?? 0).to.be.greaterThan(0);
  });
});
