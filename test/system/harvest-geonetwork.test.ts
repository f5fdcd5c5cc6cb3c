/**
 * GeoNetwork's CSW dialect: Cairn's CSW harvest adapter against the responses GeoNetwork's own
 * harvester tests use (test/fixtures/peers/geonetwork, vendored unchanged with PROVENANCE.md),
 * served by a loopback HTTP server of the test that answers GetCapabilities and GetRecords by
 * startPosition, as GeoNetwork's /srv/eng/csw does. The recorded page is GeoNetwork's: two
 * gmd:MD_Metadata records, `elementSet="summary"` whatever was asked, `nextRecord="0"` at the
 * end of the result set, a comment before the root element. The expected record ids are read
 * from the vendored file, not from Cairn.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressPolicy } from '../../shared/harvest/address-policy.js';
import { resolveSource } from '../../shared/harvest/harvest-source.js';
import { runHarvest } from '../../shared/harvest/run-harvest.js';
import { SourceClient } from '../../shared/harvest/source-client.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { fixturePath } from '../support/fixtures.js';

const GMD = 'http://www.isotc211.org/2005/gmd';
const PEER = (name: string) => readFileSync(fixturePath('peers', 'geonetwork', name), 'utf8');
const CAPABILITIES = PEER('capabilities.xml');
const GET_RECORDS = PEER('getRecords.xml');

/** The record ids of the recorded page, read from its text: each gmd:fileIdentifier. */
const RECORDED_IDS = [
  ...GET_RECORDS.matchAll(
    /<gmd:fileIdentifier>\s*<gco:CharacterString>([^<]+)<\/gco:CharacterString>/g,
  ),
].map((match) => (match[1] ?? '').trim());

/** What the peer was asked. */
interface Asked {
  method: string;
  request: string;
  startPosition: string | undefined;
  typeNames: string | undefined;
  outputSchema: string | undefined;
}

/** An OWS ExceptionReport, for what the recording does not hold. */
function exceptionReport(code: string, locator: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows" version="1.0.0">
  <ows:Exception exceptionCode="${code}" locator="${locator}"/>
</ows:ExceptionReport>`;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A KVP parameter, its name in any case (CSW KVP names are case-insensitive). */
function kvp(url: URL, name: string): string | undefined {
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** An attribute of the root element of an XML request body (GetRecords POST). */
function rootAttribute(xml: string, name: string): string | undefined {
  const root = /<[A-Za-z_][\w.-]*:GetRecords\b([^>]*)>/.exec(xml)?.[1] ?? '';
  return new RegExp(`\\s${name}="([^"]*)"`).exec(root)?.[1];
}

describe('harvesting GeoNetwork CSW responses (recorded, served on loopback)', function () {
  this.timeout(60000);
  let server: Server;
  let endpoint: string;
  let port: number;
  const asked: Asked[] = [];

  before(async () => {
    server = createServer((request, response) => {
      void (async () => {
        const url = new URL(request.url ?? '/', 'http://peer');
        const body = request.method === 'POST' ? await bodyOf(request) : '';
        const name =
          request.method === 'POST'
            ? (/<[A-Za-z_][\w.-]*:(GetRecords|GetCapabilities)\b/.exec(body)?.[1] ?? '')
            : (kvp(url, 'request') ?? '');
        const startPosition =
          request.method === 'POST'
            ? rootAttribute(body, 'startPosition')
            : kvp(url, 'startposition');
        asked.push({
          method: request.method ?? '',
          request: name,
          startPosition,
          typeNames:
            request.method === 'POST'
              ? /typeNames="([^"]*)"/.exec(body)?.[1]
              : kvp(url, 'typenames'),
          outputSchema:
            request.method === 'POST'
              ? rootAttribute(body, 'outputSchema')
              : kvp(url, 'outputschema'),
        });
        response.setHeader('content-type', 'application/xml;charset=UTF-8');
        if (url.pathname !== '/geonetwork/srv/eng/csw') {
          response.statusCode = 404;
          response.end();
          return;
        }
        if (name === 'GetCapabilities') {
          response.end(CAPABILITIES);
          return;
        }
        if (name === 'GetRecords' && (startPosition ?? '1') === '1') {
          response.end(GET_RECORDS);
          return;
        }
        // The recording holds the first page only (the whole result set: nextRecord="0").
        response.statusCode = 400;
        response.end(
          exceptionReport(
            name === 'GetRecords' ? 'InvalidParameterValue' : 'OperationNotSupported',
            name === 'GetRecords' ? 'startPosition' : 'request',
          ),
        );
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    endpoint = `http://127.0.0.1:${port}/geonetwork/srv/eng/csw`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('the vendored page holds the records its SearchResults announce', () => {
    assert.deepEqual(RECORDED_IDS, [
      'da165110-88fd-11da-a88f-000d939bc5d8',
      '7e926fbf-00fb-4ff5-a99e-c8576027c4e7',
    ]);
    assert.match(GET_RECORDS, /numberOfRecordsMatched="2" numberOfRecordsReturned="2"/);
    assert.match(GET_RECORDS, /nextRecord="0"/);
  });

  it('the capabilities offer GetRecords in ISO 19139, which the source asks for', async () => {
    const response = await fetch(`${endpoint}?service=CSW&request=GetCapabilities`);
    assert.equal(response.status, 200);
    const text = await response.text();
    const getRecords = /<ows:Operation name="GetRecords">([\s\S]*?)<\/ows:Operation>/.exec(text);
    assert.ok(getRecords, 'GetRecords operation');
    const schemas = /<ows:Parameter name="outputSchema">([\s\S]*?)<\/ows:Parameter>/.exec(
      getRecords[1] ?? '',
    );
    assert.ok(schemas?.[1]?.includes(`<ows:Value>${GMD}</ows:Value>`), 'gmd output schema');
  });

  for (const method of ['GET', 'POST'] as const) {
    it(`a full harvest by ${method} stores exactly the recorded records, from one page`, async () => {
      const directory = mkdtempSync(join(tmpdir(), 'cairn-harvest-geonetwork-'));
      const backend = new SqliteBackend({ path: join(directory, 'cairn.sqlite') });
      try {
        await backend.init();
        asked.length = 0;
        const source = resolveSource({
          id: `geonetwork-${method.toLowerCase()}`,
          protocol: 'csw',
          url: endpoint,
          version: '2.0.2',
          outputSchema: 'gmd',
          method,
          pageSize: 10,
        });
        const client = new SourceClient({
          auth: source.auth,
          policy: new AddressPolicy([`127.0.0.1:${port}`]),
        });
        const outcome = await runHarvest({
          source,
          backend,
          client,
          batchSize: 50,
          maxBytes: 4 * 1024 * 1024,
        });
        assert.deepEqual(outcome.letters, [], 'no dead letters');
        assert.equal(outcome.mode, 'full');
        assert.equal(outcome.read, RECORDED_IDS.length);
        assert.equal(outcome.written, RECORDED_IDS.length);
        assert.equal(outcome.rejected, 0);

        // One GetRecords, at startPosition 1: GeoNetwork's nextRecord="0" ends the listing.
        assert.deepEqual(asked, [
          {
            method,
            request: 'GetRecords',
            startPosition: '1',
            typeNames: 'gmd:MD_Metadata',
            outputSchema: GMD,
          },
        ]);

        const stored = await backend.search({ sort: [], offset: 0, limit: 100 });
        assert.deepEqual(
          stored.records.map((record) => record.id).sort(),
          [...RECORDED_IDS].sort(),
        );
        assert.equal(stored.total, RECORDED_IDS.length);
        // What the source documents say, as stored: titles trimmed of GeoNetwork's line
        // breaks, the bounding boxes of gmd:EX_GeographicBoundingBox.
        const basins = await backend.get('da165110-88fd-11da-a88f-000d939bc5d8');
        assert.equal(
          basins?.title,
          'Hydrological Basins in Africa (Sample record, please remove!)',
        );
        assert.deepEqual(basins?.bbox, [-17.3, -34.6, 51.1, 38.2]);
        const eurasia = await backend.get('7e926fbf-00fb-4ff5-a99e-c8576027c4e7');
        assert.match(eurasia?.title ?? '', /^Physiographic Map of North and Central Eurasia/);
        assert.deepEqual(eurasia?.bbox, [37, -3, 156, 83]);
      } finally {
        await backend.close();
        rmSync(directory, { recursive: true, force: true });
      }
    });
  }

  it('a page the recording does not hold is answered with an ExceptionReport, not page 1 again', async () => {
    const response = await fetch(
      `${endpoint}?service=CSW&version=2.0.2&request=GetRecords&startPosition=3`,
    );
    assert.equal(response.status, 400);
    assert.match(await response.text(), /exceptionCode="InvalidParameterValue"/);
  });
});
