/**
 * The harvest adapters against pycsw 3's dialects, each reproduced by a loopback proxy in front
 * of Cairn's own provider (a test app on SQLite) that answers as pycsw 3.0 does where its
 * dialect differs (the real pycsw is harvested in test/peers/harvest-peers.test.ts):
 *
 * - CSW 3.0 KVP: pycsw reads the `namespace` parameter only as `xmlns(prefix=uri)` and answers
 *   the comma form `xmlns(prefix,uri)` with a 500;
 * - OGC API – Records: pycsw reads a GET `filter` as ECQL without TIMESTAMP() and answers it
 *   with a 400, while it compares `updated` with a string;
 * - OAI-PMH: pycsw answers a resumptionToken without metadataPrefix with badArgument (it reads
 *   the token as a start position and needs the listing's arguments beside it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { AddressPolicy } from '../../shared/harvest/address-policy.js';
import { createSourceAdapter } from '../../shared/harvest/adapters/index.js';
import {
  resolveSource,
  type HarvestSourceDefinition,
} from '../../shared/harvest/harvest-source.js';
import { SourceClient } from '../../shared/harvest/source-client.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const RECORDS = 12;

/** What the proxy answers instead of the provider, for a request it refuses as pycsw would. */
type Dialect = (url: URL) => { status: number; type: string; body: string } | undefined;

const OAI_BAD_ARGUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<oai:OAI-PMH xmlns:oai="http://www.openarchives.org/OAI/2.0/"><oai:responseDate>2026-01-01T00:00:00Z</oai:responseDate><oai:request verb="ListRecords">http://peer/oaipmh</oai:request><oai:error code="badArgument">Missing metadataPrefix parameter</oai:error></oai:OAI-PMH>`;

describe('harvest adapters: pycsw 3 dialects (reproduced on loopback)', function () {
  this.timeout(60_000);
  let provider: TestApp;
  let server: Server;
  let origin: string;
  let dialect: Dialect | undefined;
  const asked: URL[] = [];

  before(async () => {
    provider = await createTestApp(RECORDS, { OAI_PAGE_SIZE: '5' });
    server = createServer((incoming, outgoing) => {
      const url = new URL(incoming.url ?? '/', 'http://proxy');
      asked.push(new URL(url));
      const refused = dialect?.(url);
      if (refused) {
        outgoing.writeHead(refused.status, { 'content-type': refused.type });
        outgoing.end(refused.body);
        return;
      }
      // pycsw takes the listing's arguments beside a token; Cairn, as OAI-PMH says, a token
      // alone: the proxy passes the token on by itself.
      if (url.pathname.endsWith('/oai') && url.searchParams.has('resumptionToken'))
        for (const name of ['metadataPrefix', 'from', 'until', 'set'])
          url.searchParams.delete(name);
      void request(provider.app)
        .get(`${url.pathname}${url.search}`)
        // The provider's links name the proxy, as a server's links name its own address.
        .set('host', incoming.headers.host ?? '')
        .then((answer) => {
          outgoing.writeHead(answer.status, {
            'content-type': String(answer.headers['content-type'] ?? 'text/plain'),
          });
          outgoing.end(answer.text);
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await provider?.close();
  });

  beforeEach(() => {
    dialect = undefined;
    asked.length = 0;
  });

  const ids = async (
    definition: Omit<HarvestSourceDefinition, 'id'>,
    modifiedSince?: string,
  ): Promise<string[]> => {
    const source = resolveSource({ id: 'peer', ...definition });
    const adapter = createSourceAdapter(
      source,
      new SourceClient({
        auth: { type: 'none' },
        policy: new AddressPolicy([new URL(origin).host]),
      }),
      { maxBytes: 1024 * 1024 },
    );
    const found: string[] = [];
    for await (const page of adapter.pages(modifiedSince === undefined ? {} : { modifiedSince }))
      for (const document of page) {
        const parsed = parseDocuments(document.content);
        expect(parsed.failures).to.deep.equal([]);
        found.push(...parsed.records.map((record) => record.id));
      }
    return found.sort();
  };

  const all = async (): Promise<string[]> =>
    (await provider.backend.search({ sort: [], offset: 0, limit: 100 })).records
      .map((record) => record.id)
      .sort();

  it('CSW 3.0 by GET names its namespaces as xmlns(prefix=uri), which pycsw reads', async () => {
    dialect = (url) =>
      /xmlns\([a-z]+,/.test(url.searchParams.get('namespace') ?? '')
        ? { status: 500, type: 'text/html', body: '<h1>Internal Server Error</h1>' }
        : undefined;
    const found = await ids({
      protocol: 'csw',
      url: `${origin}/catalogue/csw`,
      version: '3.0.0',
      outputSchema: 'dc',
      method: 'GET',
      pageSize: 5,
    });
    expect(found).to.deep.equal(await all());
    const namespaces = asked.map((url) => url.searchParams.get('namespace'));
    expect(namespaces).to.have.length(3);
    for (const namespace of namespaces)
      expect(namespace).to.equal(
        'xmlns(csw=http://www.opengis.net/cat/csw/3.0),xmlns(gmd=http://www.isotc211.org/2005/gmd)',
      );
  });

  it('OGC API – Records: a modification-date filter refused with a 400 is asked again as a string comparison', async () => {
    dialect = (url) =>
      (url.searchParams.get('filter') ?? '').includes('TIMESTAMP(')
        ? {
            status: 400,
            type: 'application/json',
            body: '{"code": "InvalidParameterValue", "description": "CQL evaluator error"}',
          }
        : undefined;
    const url = `${origin}/catalogue/collections/metadata:main/items`;
    const since = '2000-01-01T00:00:00.000Z';
    expect(await ids({ protocol: 'records', url, pageSize: 5 }, since)).to.deep.equal(await all());
    const filters = asked.map((asked) => asked.searchParams.get('filter'));
    expect(filters[0]).to.equal(`updated >= TIMESTAMP('${since}')`);
    expect(filters[1]).to.equal(`updated >= '${since}'`);
    // Nothing changed after now: the string comparison selects nothing, as the filter should.
    asked.length = 0;
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await ids({ protocol: 'records', url, pageSize: 5 }, future)).to.deep.equal([]);
  });

  it('OAI-PMH: a resumption token refused with badArgument is asked again with the listing’s arguments, to the end of the list', async () => {
    dialect = (url) =>
      url.searchParams.has('resumptionToken') && !url.searchParams.has('metadataPrefix')
        ? { status: 200, type: 'text/xml', body: OAI_BAD_ARGUMENT }
        : undefined;
    expect(
      await ids({ protocol: 'oai-pmh', url: `${origin}/catalogue/oai`, outputSchema: 'gmd' }),
    ).to.deep.equal(await all());
    const resumed = asked.filter((url) => url.searchParams.has('resumptionToken'));
    // The first bare token refused, then every page with metadataPrefix beside its token.
    expect(resumed.map((url) => url.searchParams.get('metadataPrefix'))).to.deep.equal([
      null,
      'iso19139',
      'iso19139',
    ]);
  });

  it('OAI-PMH: a provider that takes a bare token is never sent the listing’s arguments again', async () => {
    expect(
      await ids({ protocol: 'oai-pmh', url: `${origin}/catalogue/oai`, outputSchema: 'dc' }),
    ).to.deep.equal(await all());
    const resumed = asked.filter((url) => url.searchParams.has('resumptionToken'));
    expect(resumed).to.have.length(2);
    for (const url of resumed)
      expect([...url.searchParams.keys()].sort()).to.deep.equal(['resumptionToken', 'verb']);
  });
});
