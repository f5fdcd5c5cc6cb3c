/**
 * The OAI-PMH 2.0 data provider over HTTP (/catalogue/oai) on the backend
 * CAIRN_TEST_SYSTEM_BACKEND names: the six verbs over GET and POST, complete listings in
 * pages with resumption tokens in both formats, selective harvesting by datestamp and set,
 * deleted records, every error condition (HTTP 200), tokens shared by replicas, and every
 * response valid against the OAI-PMH, oai_dc and ISO 19139 schemas.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../services/api/app.js';
import { tokenKey } from '../../services/api/protocols/oai/routes.js';
import { encodeToken } from '../../services/api/protocols/oai/token.js';
import { createLogger } from '../../shared/logging/index.js';
import { parseXml, type XmlElement } from '../../shared/xml/index.js';
import { oaiSchemaProblems, requireXmllint } from '../support/oai-schemas.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const OAI = 'http://www.openarchives.org/OAI/2.0/';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RECORDS = 23;
const PAGE = 5;
const SECRET = 'a shared secret of at least thirty-two characters';
const REPOSITORY = 'catalogue.example.org';

function children(element: XmlElement, local: string): XmlElement[] {
  return element.children.filter((child) => child.ns === OAI && child.local === local);
}
function child(element: XmlElement, local: string): XmlElement | undefined {
  return children(element, local)[0];
}
function attribute(element: XmlElement, name: string): string | undefined {
  return element.attributes.find((candidate) => candidate.local === name)?.value;
}

interface Answer {
  xml: string;
  root: XmlElement;
  /** The error code, when the answer is an error. */
  error?: string | undefined;
}

describe('OAI-PMH data provider', function () {
  this.timeout(120_000);
  let testApp: TestApp;
  /** Every response the suite received, validated at the end. */
  const received: string[] = [];

  const ask = async (query: Record<string, string>, app = testApp.app): Promise<Answer> => {
    const response = await request(app).get('/catalogue/oai').query(query);
    expect(response.status, response.text).to.equal(200);
    expect(response.headers['content-type']).to.match(/^text\/xml/);
    received.push(response.text);
    const root = parseXml(response.text).root;
    const error = child(root, 'error');
    return { xml: response.text, root, error: error && attribute(error, 'code') };
  };

  /** Walks a whole listing; the headers in order and every page's resumptionToken element. */
  const walk = async (
    verb: 'ListIdentifiers' | 'ListRecords',
    query: Record<string, string>,
  ): Promise<{ headers: XmlElement[]; records: XmlElement[]; tokens: XmlElement[] }> => {
    const headers: XmlElement[] = [];
    const records: XmlElement[] = [];
    const tokens: XmlElement[] = [];
    let answer = await ask({ verb, ...query });
    for (;;) {
      expect(answer.error, answer.xml).to.equal(undefined);
      const list = defined(child(answer.root, verb), verb);
      if (verb === 'ListRecords') {
        for (const record of children(list, 'record')) {
          records.push(record);
          headers.push(defined(child(record, 'header'), 'header'));
        }
      } else headers.push(...children(list, 'header'));
      const token = child(list, 'resumptionToken');
      if (token === undefined) break;
      tokens.push(token);
      if (token.text === '') break;
      answer = await ask({ verb, resumptionToken: token.text });
    }
    return { headers, records, tokens };
  };

  const identifierOf = (header: XmlElement): string =>
    defined(child(header, 'identifier'), 'identifier').text;

  before(async () => {
    requireXmllint();
    testApp = await createTestApp(RECORDS, {
      OAI_PAGE_SIZE: String(PAGE),
      OAI_TOKEN_SECRET: SECRET,
      OAI_REPOSITORY_IDENTIFIER: REPOSITORY,
    });
  });

  after(async () => {
    await testApp?.close();
  });

  it('Identify: the repository, its base URL, earliest datestamp and deleted-record support', async () => {
    const { root, error } = await ask({ verb: 'Identify' });
    expect(error).to.equal(undefined);
    const identify = defined(child(root, 'Identify'), 'Identify');
    expect(child(identify, 'baseURL')?.text).to.match(/\/catalogue\/oai$/);
    expect(child(identify, 'protocolVersion')?.text).to.equal('2.0');
    expect(child(identify, 'deletedRecord')?.text).to.equal('persistent');
    expect(child(identify, 'granularity')?.text).to.equal('YYYY-MM-DDThh:mm:ssZ');
    expect(child(identify, 'earliestDatestamp')?.text).to.match(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    const post = await request(testApp.app)
      .post('/catalogue/oai')
      .type('form')
      .send({ verb: 'Identify' });
    expect(post.status).to.equal(200);
    expect(parseXml(post.text).root.children.map((element) => element.local)).to.deep.equal([
      'responseDate',
      'request',
      'Identify',
    ]);
    received.push(post.text);
  });

  it('is linked from the landing page and the CSW capabilities', async () => {
    const landing = await request(testApp.app).get('/catalogue').query({ f: 'json' });
    const links = (landing.body as { links: { href: string }[] }).links.map((link) => link.href);
    expect(links.some((href) => href.endsWith('/catalogue/oai?verb=Identify'))).to.equal(true);
    const capabilities = await request(testApp.app)
      .get('/catalogue/csw')
      .query({ service: 'CSW', request: 'GetCapabilities', version: '2.0.2' });
    expect(capabilities.text).to.match(/OAI-PMHBaseURL[\s\S]*\/catalogue\/oai</);
  });

  it('ListMetadataFormats: oai_dc, ISO 19139 and DCAT-AP, for the repository and for one record', async () => {
    const { root } = await ask({ verb: 'ListMetadataFormats' });
    const prefixes = (element: XmlElement): string[] =>
      children(defined(child(element, 'ListMetadataFormats'), 'list'), 'metadataFormat').map(
        (format) => defined(child(format, 'metadataPrefix'), 'prefix').text,
      );
    expect(prefixes(root)).to.deep.equal(['oai_dc', 'iso19139', 'dcat_ap']);
    const { headers } = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    const one = await ask({
      verb: 'ListMetadataFormats',
      identifier: identifierOf(defined(headers[0], 'h')),
    });
    expect(prefixes(one.root)).to.deep.equal(['oai_dc', 'iso19139', 'dcat_ap']);
    expect(
      (await ask({ verb: 'ListMetadataFormats', identifier: 'oai:elsewhere:x' })).error,
    ).to.equal('idDoesNotExist');
  });

  it('ListRecords and ListIdentifiers give every record exactly once, in pages, in every format', async () => {
    const { total } = await testApp.backend.search({ sort: [], offset: 0, limit: 0 });
    expect(total).to.equal(RECORDS);
    for (const metadataPrefix of ['oai_dc', 'iso19139', 'dcat_ap']) {
      const records = await walk('ListRecords', { metadataPrefix });
      const ids = records.headers.map(identifierOf);
      expect(ids, metadataPrefix).to.have.length(RECORDS);
      expect(new Set(ids).size).to.equal(RECORDS);
      expect(ids.every((id) => id.startsWith(`oai:${REPOSITORY}:`))).to.equal(true);
      for (const record of records.records)
        expect(defined(child(record, 'metadata'), 'metadata').children).to.have.length(1);
      // Cursor and completeListSize on every page; the last token is empty.
      expect(records.tokens).to.have.length(Math.ceil(RECORDS / PAGE) - 1 + 1);
      records.tokens.forEach((token, page) => {
        expect(attribute(token, 'completeListSize')).to.equal(String(RECORDS));
        expect(attribute(token, 'cursor')).to.equal(String(page * PAGE));
      });
      const last = defined(records.tokens.at(-1), 'the last token');
      expect(last.text).to.equal('');
      expect(records.tokens[0] && attribute(records.tokens[0], 'expirationDate')).to.match(/Z$/);
      const identifiers = await walk('ListIdentifiers', { metadataPrefix });
      expect(identifiers.headers.map(identifierOf)).to.deep.equal(ids);
    }
  });

  it('GetRecord in every format; the identifier of an unknown record is idDoesNotExist', async () => {
    const { headers } = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    const identifier = identifierOf(defined(headers[3], 'a header'));
    for (const metadataPrefix of ['oai_dc', 'iso19139', 'dcat_ap']) {
      const { root, error } = await ask({ verb: 'GetRecord', identifier, metadataPrefix });
      expect(error).to.equal(undefined);
      const record = defined(child(defined(child(root, 'GetRecord'), 'GetRecord'), 'record'), 'r');
      expect(identifierOf(defined(child(record, 'header'), 'header'))).to.equal(identifier);
    }
    expect(
      (
        await ask({
          verb: 'GetRecord',
          identifier: `oai:${REPOSITORY}:absent`,
          metadataPrefix: 'oai_dc',
        })
      ).error,
    ).to.equal('idDoesNotExist');
    expect((await ask({ verb: 'GetRecord', identifier, metadataPrefix: 'marc21' })).error).to.equal(
      'cannotDisseminateFormat',
    );
  });

  it('ListSets lists the resource types and parent collections, and a set selects its records', async () => {
    const { root } = await ask({ verb: 'ListSets' });
    const specs = children(defined(child(root, 'ListSets'), 'ListSets'), 'set').map(
      (set) => defined(child(set, 'setSpec'), 'spec').text,
    );
    expect(specs).to.include.members(['type', 'collection']);
    const typeSets = specs.filter((spec) => spec.startsWith('type:'));
    expect(typeSets.length).to.be.greaterThan(0);
    let listed = 0;
    for (const set of typeSets) {
      const { headers } = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc', set });
      for (const header of headers)
        expect(children(header, 'setSpec').map((spec) => spec.text)).to.include(set);
      listed += headers.length;
    }
    const typed = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc', set: 'type' });
    expect(listed).to.equal(typed.headers.length);
    expect(
      (await ask({ verb: 'ListIdentifiers', metadataPrefix: 'oai_dc', set: 'nonsense' })).error,
    ).to.equal('badArgument');
  });

  it('a deleted record is listed as deleted from its deletion time on; from and until are inclusive', async () => {
    const { headers } = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    const identifier = identifierOf(defined(headers[0], 'the first header'));
    const id = identifier.slice(`oai:${REPOSITORY}:`.length);
    const lastDatestamp = defined(child(defined(headers.at(-1), 'h'), 'datestamp'), 'd').text;
    // Deleted in a later second than every write, so that `from` selects the deletion alone.
    while (new Date().toISOString().slice(0, 19) + 'Z' <= lastDatestamp)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // The second the deletion happens in (or a later one): taken before the delete, which may
    // take a while on an engine.
    const deletedAt = new Date().toISOString().slice(0, 19) + 'Z';
    expect(await testApp.backend.delete([id])).to.equal(1);

    const later = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc', from: deletedAt });
    expect(later.headers.map(identifierOf)).to.deep.equal([identifier]);
    expect(attribute(defined(later.headers[0], 'h'), 'status')).to.equal('deleted');
    const asRecords = await walk('ListRecords', { metadataPrefix: 'iso19139', from: deletedAt });
    expect(child(defined(asRecords.records[0], 'r'), 'metadata')).to.equal(undefined);
    const got = await ask({ verb: 'GetRecord', identifier, metadataPrefix: 'oai_dc' });
    const header = defined(
      child(defined(child(defined(child(got.root, 'GetRecord'), 'g'), 'record'), 'r'), 'header'),
      'h',
    );
    expect(attribute(header, 'status')).to.equal('deleted');

    const before = await walk('ListIdentifiers', {
      metadataPrefix: 'oai_dc',
      until: lastDatestamp,
    });
    expect(before.headers).to.have.length(RECORDS - 1);
    const all = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    expect(all.headers).to.have.length(RECORDS);
    expect((await testApp.backend.search({ sort: [], offset: 0, limit: 0 })).total).to.equal(
      RECORDS - 1,
    );
    const day = deletedAt.slice(0, 10);
    const today = await walk('ListIdentifiers', {
      metadataPrefix: 'oai_dc',
      from: day,
      until: day,
    });
    expect(today.headers.map(identifierOf)).to.include(identifier);
  });

  it('answers every error condition with its code and HTTP 200', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'badVerb'],
      [{ verb: 'Dance' }, 'badVerb'],
      [{ verb: 'Identify', extra: 'x' }, 'badArgument'],
      [{ verb: 'ListRecords' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-13-01' }, 'badArgument'],
      [
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-01-01T00:00:00' },
        'badArgument',
      ],
      [
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2024-01-02', until: '2024-01-01' },
        'badArgument',
      ],
      [
        {
          verb: 'ListRecords',
          metadataPrefix: 'oai_dc',
          from: '2024-01-01',
          until: '2024-02-01T00:00:00Z',
        },
        'badArgument',
      ],
      [{ verb: 'ListRecords', metadataPrefix: 'oai dc' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', resumptionToken: 'x' }, 'badArgument'],
      [{ verb: 'ListRecords', metadataPrefix: 'marc21' }, 'cannotDisseminateFormat'],
      [{ verb: 'ListRecords', metadataPrefix: 'oai_dc', from: '2999-01-01' }, 'noRecordsMatch'],
      [
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', set: 'type:no-such-type' },
        'noRecordsMatch',
      ],
      [{ verb: 'ListRecords', resumptionToken: 'forged' }, 'badResumptionToken'],
      [{ verb: 'ListSets', resumptionToken: 'anything' }, 'badResumptionToken'],
      [{ verb: 'GetRecord', identifier: 'oai:x:y' }, 'badArgument'],
      [{ verb: 'GetRecord', identifier: 'not-ours', metadataPrefix: 'oai_dc' }, 'idDoesNotExist'],
    ];
    for (const [query, code] of cases) {
      const answer = await ask(query);
      expect(answer.error, JSON.stringify(query)).to.equal(code);
      const requestElement = defined(child(answer.root, 'request'), 'request');
      if (code === 'badVerb' || code === 'badArgument')
        expect(requestElement.attributes, JSON.stringify(query)).to.deep.equal([]);
    }
    const repeated = await request(testApp.app).get('/catalogue/oai?verb=Identify&verb=Identify');
    expect(repeated.status).to.equal(200);
    expect(repeated.text).to.include('code="badVerb"');
    received.push(repeated.text);
    const repeatedArgument = await request(testApp.app).get(
      '/catalogue/oai?verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=iso19139',
    );
    expect(repeatedArgument.text).to.include('code="badArgument"');
    received.push(repeatedArgument.text);
  });

  it('refuses a forged, altered, expired or foreign token; a replica with the same secret continues a listing', async () => {
    const first = await ask({ verb: 'ListRecords', metadataPrefix: 'oai_dc' });
    const token = defined(
      child(defined(child(first.root, 'ListRecords'), 'l'), 'resumptionToken'),
      't',
    ).text;
    const [payload, signature] = token.split('.') as [string, string];
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { cursor: number };
    altered.cursor = 0;
    const forged = `${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${signature}`;
    expect((await ask({ verb: 'ListRecords', resumptionToken: forged })).error).to.equal(
      'badResumptionToken',
    );
    expect((await ask({ verb: 'ListIdentifiers', resumptionToken: token })).error).to.equal(
      'badResumptionToken',
    );
    const expired = encodeToken(
      {
        verb: 'ListRecords',
        metadataPrefix: 'oai_dc',
        after: { changed: '2000-01-01T00:00:00.000Z', id: 'x' },
        cursor: 5,
        completeListSize: 10,
        expires: Date.now() - 1000,
      },
      tokenKey(SECRET),
    );
    expect((await ask({ verb: 'ListRecords', resumptionToken: expired })).error).to.equal(
      'badResumptionToken',
    );

    const logger = createLogger('silent', 'test');
    const replica = createApp({ config: testApp.config, backend: testApp.backend, logger });
    const next = await ask({ verb: 'ListRecords', resumptionToken: token }, replica);
    expect(next.error).to.equal(undefined);
    const stranger = createApp({
      config: {
        ...testApp.config,
        oai: {
          ...testApp.config.oai,
          tokenSecret: 'another secret of thirty-two characters or more',
        },
      },
      backend: testApp.backend,
      logger,
    });
    expect((await ask({ verb: 'ListRecords', resumptionToken: token }, stranger)).error).to.equal(
      'badResumptionToken',
    );
  });

  it('answers hostile argument values with an OAI-PMH response, never a 500', async () => {
    const hostile = [
      '<script>alert(1)</script>',
      '"quoted" & \'apostrophes\'',
      'control\u0001\u0008characters',
      'ünïcødé 😀',
      'x'.repeat(5000),
      '',
      '%00',
      '../../etc/passwd',
    ];
    for (const value of hostile) {
      for (const query of [
        { verb: value },
        { verb: 'GetRecord', identifier: value, metadataPrefix: 'oai_dc' },
        { verb: 'GetRecord', identifier: `oai:${REPOSITORY}:${value}`, metadataPrefix: 'oai_dc' },
        { verb: 'ListRecords', metadataPrefix: value },
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', set: value },
        { verb: 'ListRecords', metadataPrefix: 'oai_dc', from: value },
        { verb: 'ListIdentifiers', resumptionToken: value },
        { verb: 'ListMetadataFormats', identifier: value },
      ]) {
        const answer = await ask(query);
        expect(answer.error, JSON.stringify(query)).to.be.a('string');
      }
    }
  });

  it('DCAT-AP: one rdf:RDF per record, without an XML declaration, describing the record by its Records URL', async () => {
    const { headers } = await walk('ListIdentifiers', { metadataPrefix: 'oai_dc' });
    const identifier = identifierOf(defined(headers[2], 'a header'));
    const id = identifier.slice(`oai:${REPOSITORY}:`.length);
    const answer = await ask({ verb: 'GetRecord', identifier, metadataPrefix: 'dcat_ap' });
    expect(answer.xml.match(/<\?xml/g)).to.have.length(1);
    const record = defined(child(defined(child(answer.root, 'GetRecord'), 'g'), 'record'), 'r');
    const [rdf, ...more] = defined(child(record, 'metadata'), 'metadata').children;
    expect(more).to.deep.equal([]);
    expect(rdf?.ns).to.equal(RDF);
    expect(rdf?.local).to.equal('RDF');
    const described = defined(rdf, 'rdf').children.find(
      (description) =>
        description.attributes.find((a) => a.ns === RDF && a.local === 'about')?.value ===
        `${new URL(answer.xml.match(/<request[^>]*>([^<]+)</)?.[1] ?? '').origin}/catalogue/collections/metadata:main/items/${encodeURIComponent(id)}`,
    );
    expect(described, answer.xml).not.to.equal(undefined);
    const types = defined(described, 'd')
      .children.filter((property) => property.ns === RDF && property.local === 'type')
      .map((type) => type.attributes.find((a) => a.local === 'resource')?.value);
    expect(types.some((type) => type?.startsWith('http://www.w3.org/ns/dcat#'))).to.equal(true);
    // Deleted records have no metadata in any format; listing them as DCAT-AP works too.
    const { headers: dcat } = await walk('ListIdentifiers', { metadataPrefix: 'dcat_ap' });
    expect(dcat.map(identifierOf)).to.include(identifier);
  });

  it('every response is valid against the OAI-PMH schema, each record against its format', () => {
    expect(received.length).to.be.greaterThan(40);
    expect(oaiSchemaProblems(received)).to.deep.equal([]);
  });
});
