/**
 * The OAI-PMH harvest adapter against Cairn's own provider (a test app on SQLite) behind a
 * loopback proxy that can fail or cut pages: a page that fails for a passing reason is asked
 * again, a listing that ends before its completeListSize is refused (so the run deletes
 * nothing), and an incremental listing reports the records deleted since its date.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { AddressPolicy } from '../../shared/harvest/address-policy.js';
import { OaiPmhAdapter, localIdOf } from '../../shared/harvest/adapters/oai-pmh-adapter.js';
import { resolveSource } from '../../shared/harvest/harvest-source.js';
import { HarvestSourceError, SourceClient } from '../../shared/harvest/source-client.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const RECORDS = 12;

/** What the proxy does to the answer of the request it is told about. */
type Fault = (query: URLSearchParams, body: string) => { status: number; body: string } | undefined;

describe('OAI-PMH harvest adapter', function () {
  this.timeout(60_000);
  let provider: TestApp;
  let server: Server;
  let base: string;
  let fault: Fault | undefined;
  const asked: string[] = [];

  before(async () => {
    provider = await createTestApp(RECORDS, { OAI_PAGE_SIZE: '5' });
    server = createServer((incoming, outgoing) => {
      const url = new URL(incoming.url ?? '/', 'http://proxy');
      asked.push(url.search);
      void request(provider.app)
        .get(`/catalogue/oai${url.search}`)
        .then((answer) => {
          const changed = fault?.(url.searchParams, answer.text);
          outgoing.writeHead(changed?.status ?? answer.status, { 'content-type': 'text/xml' });
          outgoing.end(changed?.body ?? answer.text);
        });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oai`;
  });

  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await provider?.close();
  });

  beforeEach(() => {
    fault = undefined;
    asked.length = 0;
  });

  const adapter = (outputSchema: 'gmd' | 'dc' = 'gmd'): OaiPmhAdapter =>
    new OaiPmhAdapter(
      resolveSource({ id: 'oai', protocol: 'oai-pmh', url: base, outputSchema }),
      new SourceClient({
        auth: { type: 'none' },
        policy: new AddressPolicy([`127.0.0.1:${new URL(base).port}`]),
      }),
      1024 * 1024,
    );

  const harvest = async (source: OaiPmhAdapter, modifiedSince?: string): Promise<string[]> => {
    const ids: string[] = [];
    const options = modifiedSince === undefined ? {} : { modifiedSince };
    for await (const page of source.pages(options)) {
      for (const document of page) {
        const parsed = parseDocuments(document.content);
        expect(parsed.failures).to.deep.equal([]);
        ids.push(...parsed.records.map((record) => record.id));
      }
    }
    return ids;
  };

  it('takes every record once in both formats, following the resumption tokens', async () => {
    const expected = (await provider.backend.search({ sort: [], offset: 0, limit: 100 })).records
      .map((record) => record.id)
      .sort();
    expect((await harvest(adapter('gmd'))).sort()).to.deep.equal(expected);
    expect((await harvest(adapter('dc'))).sort()).to.deep.equal(expected);
    expect(asked.filter((search) => search.includes('resumptionToken'))).to.have.length(4);
  });

  it('asks again for a page that failed for a passing reason', async () => {
    let failures = 0;
    fault = (query) => {
      if (query.has('resumptionToken') && failures === 0) {
        failures += 1;
        return { status: 503, body: 'busy' };
      }
      return undefined;
    };
    expect(await harvest(adapter())).to.have.length(RECORDS);
    const resumed = asked.filter((search) => search.includes('resumptionToken'));
    expect(resumed[0]).to.equal(resumed[1]);
  });

  it('refuses a listing whose tokens end before its completeListSize', async () => {
    fault = (query, body) =>
      query.has('resumptionToken')
        ? {
            status: 200,
            body: body.replace(/(<resumptionToken[^>]*>)[^<]+(<\/resumptionToken>)/, '$1$2'),
          }
        : undefined;
    const error = await harvest(adapter()).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(HarvestSourceError);
    expect((error as Error).message).to.match(/nothing was deleted/);
  });

  it('an incremental listing reports the records deleted since its date', async () => {
    const [first] = (await provider.backend.search({ sort: [], offset: 0, limit: 1 })).records;
    const since = new Date(Date.now() + 1000).toISOString();
    while (new Date().toISOString() < since)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await provider.backend.delete([first!.id])).to.equal(1);
    const source = adapter();
    expect(await harvest(source, since)).to.deep.equal([]);
    expect(source.deletions.deletedIds()).to.deep.equal([first!.id]);
  });

  it('reads the record id of an oai-identifier', () => {
    expect(localIdOf('oai:catalogue.example.org:abc:def')).to.equal('abc:def');
    expect(localIdOf('urn:uuid:1234')).to.equal('urn:uuid:1234');
  });
});
