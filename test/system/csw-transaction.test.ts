/**
 * CSW-T over HTTP with real Keycloak tokens, in CSW 2.0.2 and 3.0: Transaction Insert (ISO
 * 19139 and csw:Record), Update (full replacement), Delete (FES filter, CQL text) and Harvest
 * of a second Cairn instance on loopback; every exception case in the version's
 * ExceptionReport; responses valid against the CSW schemas; capabilities list Transaction and
 * Harvest only when writes are configured. Scaled mode (real Redis, worker): the Transaction
 * waits for its jobs, Harvest answers an Acknowledgement with the job link.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig } from '../../shared/config/index.js';
import type { SearchBackend } from '../../shared/search/backend.js';
import { SqliteIngestLog } from '../../shared/search/sqlite/sqlite-ingest-log.js';
import { parseXml } from '../../shared/xml/index.js';
import { requireXmllint, validateCsw, type CswSchema } from '../support/csw-schemas.js';
import { createTestBackend } from '../integration/engine-backend-cases.js';
import { samplePath } from '../support/fixtures.js';
import { startScaledApp, type ScaledApp } from '../support/scaled-app.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { REDIS_URL, requireRedis, waitFor } from '../integration/worker/worker-support.js';
import { allIds, startSourceCatalogue, type SourceCatalogue } from './harvest-support.js';
import { defined } from '../support/defined.js';

type Version = '2.0.2' | '3.0.0';
const CSW_NS: Record<Version, string> = {
  '2.0.2': 'http://www.opengis.net/cat/csw/2.0.2',
  '3.0.0': 'http://www.opengis.net/cat/csw/3.0',
};
const FILTER: Record<Version, (id: string) => string> = {
  '2.0.2': (id) =>
    `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsEqualTo><ogc:PropertyName>dc:identifier</ogc:PropertyName><ogc:Literal>${id}</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>`,
  '3.0.0': (id) =>
    `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo><fes:ValueReference>dc:identifier</fes:ValueReference><fes:Literal>${id}</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>`,
};
const SCHEMA: Record<Version, CswSchema> = { '2.0.2': 'csw-2.0.2-publication', '3.0.0': 'csw-3.0' };

function environment(): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'cairn-csw-t-'));
  return {
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: CLIENT.catalogue,
    WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    // The harvested catalogues are on loopback, which harvesting refuses unless named here.
    HARVEST_ALLOWED_ADDRESSES: '127.0.0.1:*',
  };
}

function isoSample(): { id: string; xml: string } {
  const xml = readFileSync(samplePath('iso19139', '3e9a8c05.xml'), 'utf8').replace(
    /^<\?xml[^>]*>\s*/,
    '',
  );
  const id = /<gmd:fileIdentifier>\s*<gco:CharacterString>([^<]+)</.exec(xml)?.[1];
  if (!id) throw new Error('the ISO sample has no fileIdentifier');
  return { id, xml };
}

function dcRecord(version: Version, id: string, title: string): string {
  return `<csw:Record xmlns:csw="${CSW_NS[version]}" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier>${id}</dc:identifier><dc:title>${title}</dc:title><dc:type>dataset</dc:type></csw:Record>`;
}

function transaction(version: Version, body: string, attributes = ''): string {
  return `<csw:Transaction xmlns:csw="${CSW_NS[version]}" service="CSW" version="${version}"${attributes}>${body}</csw:Transaction>`;
}

function harvestRequest(
  version: Version,
  source: string,
  extra = '',
  type = CSW_NS['2.0.2'],
): string {
  return `<csw:Harvest xmlns:csw="${CSW_NS[version]}" service="CSW" version="${version}"><csw:Source>${source}</csw:Source><csw:ResourceType>${type}</csw:ResourceType>${extra}</csw:Harvest>`;
}

/** The text of an element by local name (first match). */
function textOf(xml: string, local: string): string | undefined {
  const match = new RegExp(`<(?:\\w+:)?${local}[^>]*>([^<]*)<`).exec(xml);
  return match?.[1];
}

function exceptionOf(xml: string): { code?: string | undefined; locator?: string | undefined } {
  const root = parseXml(xml).root;
  assert.equal(root.local, 'ExceptionReport', xml);
  const exception = defined(root.children[0], 'the Exception element');
  const attribute = (name: string) =>
    exception.attributes.find((item) => item.local === name)?.value;
  return { code: attribute('exceptionCode'), locator: attribute('locator') };
}

/** A Delete constraint that parses but that SQLite cannot evaluate (≥ 1,000 OR terms). */
function oversizedOrFilter(): string {
  const terms = Array.from(
    { length: 1200 },
    (_, i) =>
      `<ogc:PropertyIsEqualTo><ogc:PropertyName>dc:identifier</ogc:PropertyName><ogc:Literal>none-${i}</ogc:Literal></ogc:PropertyIsEqualTo>`,
  ).join('');
  return `<csw:Constraint version="1.1.0"><ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:Or>${terms}</ogc:Or></ogc:Filter></csw:Constraint>`;
}

/** A Delete constraint that parses but that a search engine refuses (70,000 identifiers). */
function oversizedInConstraint(): string {
  const ids = Array.from({ length: 70_000 }, (_, i) => `'n${i}'`).join(',');
  return `<csw:Constraint version="1.1.0"><csw:CqlText>dc:identifier IN (${ids})</csw:CqlText></csw:Constraint>`;
}

/**
 * CSW-T atomicity on one catalogue: a Transaction whose Delete cannot be
 * evaluated writes nothing, not even its earlier Insert and Update; a Delete sees what the
 * earlier actions of its own Transaction wrote.
 */
function describeAtomicity(
  label: string,
  context: () => {
    post: (body: string) => request.Test;
    backend: SearchBackend;
    failingConstraint: string;
  },
): void {
  describe(`atomic Transactions (${label})`, () => {
    const version = '2.0.2';
    const title = async (id: string): Promise<string | null> =>
      (await context().backend.get(id))?.title ?? null;

    before(async () => {
      const seeded = await context().post(
        transaction(
          version,
          `<csw:Insert>${dcRecord(version, 'atomic-base', 'Before')}</csw:Insert>`,
        ),
      );
      assert.equal(seeded.status, 200, seeded.text);
    });

    it('writes nothing when a later Delete constraint fails: a 400 ExceptionReport, not a 500', async () => {
      const response = await context().post(
        transaction(
          version,
          `<csw:Insert>${dcRecord(version, 'atomic-new', 'New')}</csw:Insert>` +
            `<csw:Update>${dcRecord(version, 'atomic-base', 'After')}</csw:Update>` +
            `<csw:Delete>${context().failingConstraint}</csw:Delete>`,
        ),
      );
      assert.equal(response.status, 400, response.text);
      const exception = exceptionOf(response.text);
      assert.equal(exception.code, 'InvalidParameterValue', response.text);
      assert.equal(exception.locator, 'Constraint', response.text);
      assert.equal(await title('atomic-new'), null, 'the Insert was not committed');
      assert.equal(await title('atomic-base'), 'Before', 'the Update was not applied');
    });

    it('lets a Delete match what earlier actions of the same Transaction wrote', async () => {
      const response = await context().post(
        transaction(
          version,
          `<csw:Insert>${dcRecord(version, 'atomic-transient', 'Transient')}</csw:Insert>` +
            `<csw:Update>${dcRecord(version, 'atomic-base', 'Renamed')}</csw:Update>` +
            `<csw:Delete><csw:Constraint version="1.1.0"><csw:CqlText>dc:title = 'Transient' OR dc:title = 'Renamed'</csw:CqlText></csw:Constraint></csw:Delete>`,
        ),
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(
        ['totalInserted', 'totalUpdated', 'totalDeleted'].map((name) =>
          textOf(response.text, name),
        ),
        ['1', '1', '2'],
      );
      assert.equal(await title('atomic-transient'), null);
      assert.equal(await title('atomic-base'), null);
    });
  });
}

describe('CSW-T: Transaction and Harvest (real Keycloak)', function () {
  this.timeout(120000);
  let alice: string;
  let bob: string;
  const responses: Record<Version, { name: string; xml: string }[]> = { '2.0.2': [], '3.0.0': [] };

  before(async () => {
    await requireKeycloak();
    alice = (await userTokens('alice')).accessToken;
    bob = (await userTokens('bob')).accessToken;
  });

  for (const version of ['2.0.2', '3.0.0'] as const) {
    describe(`CSW ${version}, embedded mode`, () => {
      let test: TestApp;
      let source: SourceCatalogue;
      before(async () => {
        test = await createTestApp(3, environment());
        source = await startSourceCatalogue(6);
      });
      after(async () => {
        await test?.close();
        await source?.close();
      });

      const post = (body: string, token: string | undefined = alice) => {
        const call = request(test.app)
          .post('/catalogue/csw')
          .set('Content-Type', 'application/xml');
        return (token ? call.set('Authorization', `Bearer ${token}`) : call).send(body);
      };
      const expectException = async (
        body: string,
        status: number,
        code: string,
        locator?: string,
        token?: string,
      ) => {
        const before = await allIds(test);
        const response = await post(body, token);
        assert.equal(response.status, status, response.text);
        const exception = exceptionOf(response.text);
        assert.equal(exception.code, code, response.text);
        if (locator) assert.equal(exception.locator, locator, response.text);
        assert.ok(
          response.text.includes(version === '2.0.2' ? 'http://www.opengis.net/ows"' : 'ows/2.0'),
        );
        assert.deepEqual(await allIds(test), before, 'nothing was written');
        responses[version].push({ name: `exception ${code}`, xml: response.text });
        return response;
      };

      it('lists Transaction and Harvest in the capabilities', async () => {
        const response = await request(test.app).get(
          `/catalogue/csw?service=CSW&request=GetCapabilities&acceptVersions=${version}`,
        );
        assert.equal(response.status, 200);
        assert.match(response.text, /Operation name="Transaction"/);
        assert.match(response.text, /Operation name="Harvest"/);
        const harvest = /Operation name="Harvest">([\s\S]*?)<\/ows2?0?:Operation>/.exec(
          response.text,
        );
        assert.ok(harvest, response.text);
        const operation = defined(harvest[1], 'the Harvest operation');
        assert.match(operation, /:Get /, 'Harvest is offered by GET (KVP)');
        assert.match(operation, /:Post /, 'and by POST (XML)');
        if (version === '3.0.0')
          for (const name of ['Transaction', 'Harvest-Basic-XML', 'Harvest-Basic-KVP'])
            assert.match(
              response.text,
              new RegExp(
                `Constraint name="[^"]*conf/${name}">\\s*<ows20:AllowedValues>\\s*<ows20:Value>TRUE`,
              ),
              name,
            );
      });

      it('refuses writes without a token (401) or without the write role (403)', async () => {
        const body = transaction(
          version,
          `<csw:Insert>${dcRecord(version, 'anon-1', 'x')}</csw:Insert>`,
        );
        const anonymous = await expectException(body, 401, 'NoApplicableCode', undefined, '');
        assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
        await expectException(body, 403, 'NoApplicableCode', undefined, bob);
      });

      it('inserts ISO 19139 and csw:Record (verbose: brief records of what was inserted)', async () => {
        const iso = isoSample();
        const response = await post(
          transaction(
            version,
            `<csw:Insert handle="first">${iso.xml}${dcRecord(version, `dc-${version}`, 'Inserted')}</csw:Insert>`,
            ' verboseResponse="true" requestId="urn:example:1"',
          ),
        );
        assert.equal(response.status, 200, response.text);
        assert.equal(textOf(response.text, 'totalInserted'), '2');
        assert.equal(textOf(response.text, 'totalUpdated'), '0');
        assert.match(response.text, /InsertResult handleRef="first"/);
        assert.match(response.text, new RegExp(`<dc:identifier>${iso.id}</dc:identifier>`));
        assert.match(response.text, /requestId="urn:example:1"/);
        assert.equal((await test.backend.get(`dc-${version}`))?.title, 'Inserted');
        assert.ok(await test.backend.get(iso.id));
        responses[version].push({ name: 'insert', xml: response.text });
      });

      it('refuses inserting an existing id (409), a bad record, or the same id twice; nothing written', async () => {
        await expectException(
          transaction(
            version,
            `<csw:Insert>${dcRecord(version, 'fresh-1', 'x')}${dcRecord(version, `dc-${version}`, 'again')}</csw:Insert>`,
          ),
          409,
          'NoApplicableCode',
          'Insert',
        );
        await expectException(
          transaction(
            version,
            `<csw:Insert>${dcRecord(version, 'fresh-2', 'x')}<csw:Record xmlns:csw="${CSW_NS[version]}"/></csw:Insert>`,
          ),
          400,
          'InvalidParameterValue',
          'Insert',
        );
        await expectException(
          transaction(
            version,
            `<csw:Insert>${dcRecord(version, 'twice', 'a')}</csw:Insert><csw:Insert>${dcRecord(version, 'twice', 'b')}</csw:Insert>`,
          ),
          400,
          'InvalidParameterValue',
          'Insert',
        );
        await expectException(transaction(version, '<csw:Insert/>'), 400, 'MissingParameterValue');
      });

      it('updates by full replacement; a missing target or RecordProperty is refused', async () => {
        const response = await post(
          transaction(
            version,
            `<csw:Update>${dcRecord(version, `dc-${version}`, 'Replaced')}</csw:Update>`,
          ),
        );
        assert.equal(response.status, 200, response.text);
        assert.equal(textOf(response.text, 'totalUpdated'), '1');
        assert.equal((await test.backend.get(`dc-${version}`))?.title, 'Replaced');
        responses[version].push({ name: 'update', xml: response.text });

        await expectException(
          transaction(version, `<csw:Update>${dcRecord(version, 'not-here', 'x')}</csw:Update>`),
          400,
          'InvalidParameterValue',
          'Update',
        );
        await expectException(
          transaction(
            version,
            `<csw:Update><csw:RecordProperty><csw:Name>dc:title</csw:Name><csw:Value>x</csw:Value></csw:RecordProperty><csw:Constraint version="1.1.0">${FILTER[version](`dc-${version}`)}</csw:Constraint></csw:Update>`,
          ),
          501,
          'OperationNotSupported',
          'RecordProperty',
        );
      });

      it('deletes by an FES identifier filter and by CQL text; a missing Constraint is refused', async () => {
        await post(
          transaction(
            version,
            `<csw:Insert>${dcRecord(version, 'cql-victim', 'Doomed')}</csw:Insert>`,
          ),
        );
        const response = await post(
          transaction(
            version,
            `<csw:Delete><csw:Constraint version="${version === '2.0.2' ? '1.1.0' : '2.0.0'}">${FILTER[version](`dc-${version}`)}</csw:Constraint></csw:Delete><csw:Delete><csw:Constraint version="1.1.0"><csw:CqlText>dc:title = 'Doomed'</csw:CqlText></csw:Constraint></csw:Delete>`,
          ),
        );
        assert.equal(response.status, 200, response.text);
        assert.equal(textOf(response.text, 'totalDeleted'), '2');
        assert.equal(await test.backend.get(`dc-${version}`), null);
        assert.equal(await test.backend.get('cql-victim'), null);
        responses[version].push({ name: 'delete', xml: response.text });

        const none = await post(
          transaction(
            version,
            `<csw:Delete><csw:Constraint version="1.1.0">${FILTER[version]('nothing')}</csw:Constraint></csw:Delete>`,
          ),
        );
        assert.equal(textOf(none.text, 'totalDeleted'), '0');
        // Read by its namespace: the other supported version in the attribute is answered.
        const other = version === '2.0.2' ? '3.0.0' : '2.0.2';
        const mismatched = await post(
          transaction(
            version,
            `<csw:Delete><csw:Constraint version="1.1.0">${FILTER[version]('nothing')}</csw:Constraint></csw:Delete>`,
          ).replace(`version="${version}"`, `version="${other}"`),
        );
        assert.equal(mismatched.status, 200, mismatched.text);
        assert.equal(parseXml(mismatched.text).root.ns, CSW_NS[version]);
        assert.equal(textOf(mismatched.text, 'totalDeleted'), '0');
        await expectException(
          transaction(version, '<csw:Delete/>'),
          400,
          'MissingParameterValue',
          'Constraint',
        );
        await expectException(
          transaction(
            version,
            '<csw:Delete><csw:Constraint version="1.1.0"><csw:CqlText>dc:title = </csw:CqlText></csw:Constraint></csw:Delete>',
          ),
          400,
          'InvalidParameterValue',
          'Constraint',
        );
      });

      it('reads a Transaction in the encoding it declares (ISO-8859-1), never as U+FFFD', async () => {
        const body = `<?xml version="1.0" encoding="ISO-8859-1"?>${transaction(
          version,
          `<csw:Insert>${dcRecord(version, `latin1-${version}`, 'Données géologiques du Québec')}</csw:Insert>`,
        )}`;
        const response = await request(test.app)
          .post('/catalogue/csw')
          .set('Content-Type', 'application/xml')
          .set('Authorization', `Bearer ${alice}`)
          .send(Buffer.from(body, 'latin1'));
        assert.equal(response.status, 200, response.text);
        const stored = await test.backend.get(`latin1-${version}`);
        assert.equal(stored?.title, 'Données géologiques du Québec');
        assert.ok(!stored?.source.content.includes('\uFFFD'));
        const undeclared = await request(test.app)
          .post('/catalogue/csw')
          .set('Content-Type', 'application/xml')
          .set('Authorization', `Bearer ${alice}`)
          .send(Buffer.from(body.replace(' encoding="ISO-8859-1"', ''), 'latin1'));
        assert.equal(undeclared.status, 400, undeclared.text);
        assert.equal(exceptionOf(undeclared.text).code, 'NoApplicableCode');
        assert.match(undeclared.text, /not valid utf-8/);
      });

      it('refuses malformed Transactions', async () => {
        await expectException(
          `<csw:Transaction xmlns:csw="${CSW_NS[version]}" service="CSW"><csw:Insert>${dcRecord(version, 'v', 'x')}</csw:Insert></csw:Transaction>`,
          400,
          'MissingParameterValue',
          'version',
        );
        await expectException(
          transaction(version, '').replace(`version="${version}"`, 'version="9.9.9"'),
          400,
          'InvalidParameterValue',
          'version',
        );
        await expectException(
          transaction(version, ''),
          400,
          'MissingParameterValue',
          'Transaction',
        );
        await expectException(
          transaction(version, '<csw:Replace/>'),
          400,
          'InvalidParameterValue',
          'Transaction',
        );
      });

      if (version === '2.0.2')
        describeAtomicity('embedded, SQLite', () => ({
          post: (body) => post(body),
          backend: test.backend,
          failingConstraint: oversizedOrFilter(),
        }));

      it('harvests a CSW on loopback (TransactionResponse), then again incrementally (all zero)', async () => {
        const url = `${source.base}/csw`;
        const first = await post(harvestRequest(version, url));
        assert.equal(first.status, 200, first.text);
        assert.match(first.text, /HarvestResponse/);
        assert.equal(textOf(first.text, 'totalInserted'), '6');
        for (const id of await allIds(source.test)) assert.ok(await test.backend.get(id), id);
        responses[version].push({ name: 'harvest', xml: first.text });
        const second = await post(harvestRequest(version, url));
        assert.deepEqual(
          ['totalInserted', 'totalUpdated', 'totalDeleted'].map((name) =>
            textOf(second.text, name),
          ),
          ['0', '0', '0'],
        );
      });

      it('harvests an OAI-PMH provider (ResourceType: the OAI-PMH 2.0 namespace)', async () => {
        const oai = await startSourceCatalogue(3);
        try {
          const response = await post(
            harvestRequest(version, `${oai.base}/oai`, '', 'http://www.openarchives.org/OAI/2.0/'),
          );
          assert.equal(response.status, 200, response.text);
          assert.match(response.text, /HarvestResponse/);
          assert.equal(textOf(response.text, 'totalInserted'), '3');
          for (const id of await allIds(oai.test)) assert.ok(await test.backend.get(id), id);
          responses[version].push({ name: 'oai harvest', xml: response.text });
        } finally {
          await oai.close();
        }
      });

      it('harvests by GET too (KVP Harvest): same checks, same answer, write access first', async () => {
        const other = await startSourceCatalogue(4);
        try {
          const get = (query: Record<string, string>, token: string | undefined = alice) => {
            const call = request(test.app)
              .get('/catalogue/csw')
              .query({ service: 'CSW', request: 'Harvest', ...query });
            return token ? call.set('Authorization', `Bearer ${token}`) : call;
          };
          const kvp = {
            version,
            source: `${other.base}/csw`,
            resourceType: CSW_NS['2.0.2'],
          };
          // Refusals: no token (before any check of the request), missing Source, bad version.
          const before = await allIds(test);
          const refusals: [Record<string, string>, string, number, string, string?][] = [
            [{ version: 'x' }, '', 401, 'NoApplicableCode'],
            [{ version }, alice, 400, 'MissingParameterValue', 'Source'],
            [{ ...kvp, version: '9.9' }, alice, 400, 'InvalidParameterValue', 'version'],
            [
              { ...kvp, responseHandler: 'mailto:ops@example.org' },
              alice,
              501,
              'OptionNotSupported',
              'ResponseHandler',
            ],
          ];
          for (const [query, token, status, code, locator] of refusals) {
            const response = await get(query, token);
            assert.equal(response.status, status, response.text);
            const exception = exceptionOf(response.text);
            assert.equal(exception.code, code, response.text);
            if (locator) assert.equal(exception.locator, locator, response.text);
          }
          assert.deepEqual(await allIds(test), before, 'nothing was written');

          const first = await get(kvp);
          assert.equal(first.status, 200, first.text);
          assert.match(first.text, /HarvestResponse/);
          assert.equal(textOf(first.text, 'totalInserted'), '4');
          for (const id of await allIds(other.test)) assert.ok(await test.backend.get(id), id);
          responses[version].push({ name: 'harvest by KVP', xml: first.text });
          const second = await get(kvp);
          assert.equal(textOf(second.text, 'totalInserted'), '0');
          assert.equal(textOf(second.text, 'totalUpdated'), '0');
        } finally {
          await other.close();
        }
      });

      it('refuses Harvest requests it cannot honour', async () => {
        const url = `${source.base}/csw`;
        await expectException(
          harvestRequest(
            version,
            url,
            '<csw:ResponseHandler>mailto:ops@example.org</csw:ResponseHandler>',
          ),
          501,
          'OptionNotSupported',
          'ResponseHandler',
        );
        await expectException(
          harvestRequest(version, url, '<csw:HarvestInterval>P1D</csw:HarvestInterval>'),
          501,
          'OptionNotSupported',
          'HarvestInterval',
        );
        await expectException(
          harvestRequest(version, url, '', 'urn:unknown'),
          400,
          'InvalidParameterValue',
          'ResourceType',
        );
        await expectException(
          harvestRequest(version, 'file:///etc/passwd'),
          400,
          'InvalidParameterValue',
          'Source',
        );
        await expectException(
          `<csw:Harvest xmlns:csw="${CSW_NS[version]}" service="CSW" version="${version}"><csw:ResourceType>${CSW_NS['2.0.2']}</csw:ResourceType></csw:Harvest>`,
          400,
          'MissingParameterValue',
          'Source',
        );
        await expectException(harvestRequest(version, url), 401, 'NoApplicableCode', undefined, '');
      });

      it('answers with documents valid against the CSW schemas', async function () {
        requireXmllint();
        const results = validateCsw(SCHEMA[version], responses[version]);
        const invalid = results.filter((result) => !result.valid);
        assert.deepEqual(invalid, []);
        assert.ok(results.length >= 5);
      });
    });
  }

  describe('without an identity provider', () => {
    let test: TestApp;
    before(async () => {
      test = await createTestApp(1);
    });
    after(async () => test?.close());

    it('does not list Transaction/Harvest and answers OperationNotSupported', async () => {
      const capabilities = await request(test.app).get(
        '/catalogue/csw?service=CSW&request=GetCapabilities',
      );
      assert.doesNotMatch(capabilities.text, /Operation name="Transaction"/);
      const response = await request(test.app)
        .post('/catalogue/csw')
        .set('Content-Type', 'application/xml')
        .set('Authorization', `Bearer ${alice}`)
        .send(transaction('2.0.2', `<csw:Insert>${dcRecord('2.0.2', 'no-1', 'x')}</csw:Insert>`));
      assert.equal(response.status, 501);
      assert.equal(exceptionOf(response.text).code, 'OperationNotSupported');
      assert.equal(await test.backend.get('no-1'), null);
    });
  });

  describe('scaled mode (real Redis, worker)', () => {
    let test: TestApp;
    let scaled: ScaledApp | undefined;
    let ingestLog: SqliteIngestLog;
    let source: SourceCatalogue;
    let app: Express;
    before(async () => {
      await requireRedis();
      test = await createTestApp(1, {
        ...environment(),
        REDIS_URL,
        WORKER_QUEUE_PREFIX: `cairn-test-csw-t-${process.pid}-${Date.now()}`,
      });
      source = await startSourceCatalogue(4);
      scaled = startScaledApp(test.config, test.backend);
      ({ app, ingestLog } = scaled);
    });
    after(async () => {
      await scaled?.close();
      await test?.close();
      await source?.close();
    });

    const post = (body: string) =>
      request(app)
        .post('/catalogue/csw')
        .set('Content-Type', 'application/xml')
        .set('Authorization', `Bearer ${alice}`)
        .send(body);

    it('Transaction: the response reports what the worker did', async () => {
      const inserted = await post(
        transaction('3.0.0', `<csw:Insert>${dcRecord('3.0.0', 'queued-1', 'Queued')}</csw:Insert>`),
      );
      assert.equal(inserted.status, 200, inserted.text);
      assert.equal(textOf(inserted.text, 'totalInserted'), '1');
      assert.equal((await test.backend.get('queued-1'))?.title, 'Queued');
      const deleted = await post(
        transaction(
          '2.0.2',
          `<csw:Delete><csw:Constraint version="1.1.0">${FILTER['2.0.2']('queued-1')}</csw:Constraint></csw:Delete>`,
        ),
      );
      assert.equal(textOf(deleted.text, 'totalDeleted'), '1');
      assert.equal(await test.backend.get('queued-1'), null);
    });

    describeAtomicity('scaled mode, SQLite', () => ({
      post,
      backend: test.backend,
      failingConstraint: oversizedOrFilter(),
    }));

    it('Harvest: an Acknowledgement with the job link; the worker harvests the source', async function () {
      const response = await post(harvestRequest('2.0.2', `${source.base}/csw`));
      assert.equal(response.status, 200, response.text);
      assert.match(response.text, /Acknowledgement/);
      const link = textOf(response.text, 'RequestId') ?? '';
      const jobId = decodeURIComponent(link.split('/catalogue/admin/jobs/')[1] ?? '');
      assert.ok(jobId, link);
      await waitFor(
        async () => (await ingestLog.get(jobId))?.status === 'completed',
        60000,
        'harvest',
      );
      assert.equal((await ingestLog.get(jobId))?.written, 4);
      for (const id of await allIds(source.test)) assert.ok(await test.backend.get(id));
      requireXmllint();
      const result = defined(
        validateCsw('csw-2.0.2-publication', [{ name: 'ack', xml: response.text }])[0],
        'the validation result',
      );
      assert.ok(result.valid, result.errors.join('\n'));
    });
  });

  describe('scaled mode on Elasticsearch (real Redis, worker)', () => {
    const url = process.env.CAIRN_TEST_ELASTICSEARCH_URL;
    let backend: SearchBackend;
    let scaled: ScaledApp | undefined;
    let app: Express;
    before(async () => {
      if (!url)
        throw new Error(
          'CAIRN_TEST_ELASTICSEARCH_URL is not set: start the engine (bash scripts/services.sh start elasticsearch) and export its URL',
        );
      await requireRedis();
      const config = loadConfig({
        ...environment(),
        LOG_LEVEL: 'silent',
        REDIS_URL,
        WORKER_QUEUE_PREFIX: `cairn-test-csw-t-es-${process.pid}-${Date.now()}`,
      });
      backend = await createTestBackend('elasticsearch', url, { spatial: 'envelope' });
      scaled = startScaledApp(config, backend);
      app = scaled.app;
    });
    after(async () => {
      await scaled?.close();
      await backend?.close();
    });

    describeAtomicity('scaled mode, Elasticsearch', () => ({
      post: (body) =>
        request(app)
          .post('/catalogue/csw')
          .set('Content-Type', 'application/xml')
          .set('Authorization', `Bearer ${alice}`)
          .send(body),
      backend,
      failingConstraint: oversizedInConstraint(),
    }));
  });
});
