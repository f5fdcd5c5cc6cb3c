/**
 * The schema.org presentation of records (services/api/protocols/records/schema-org.ts) and
 * its embedding in HTML (services/api/html/json-ld.ts): types, Google's required properties
 * on every sample record, the description rule, geometry and time, and the script escaping.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { listFiles } from '../../shared/ingest/read-files.js';
import { buildEmptyRecord, type CoreRecord } from '../../shared/records/core-record.js';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { serializeJsonLdForScript } from '../../services/api/html/json-ld.js';
import {
  DESCRIPTION_MAX_LENGTH,
  DESCRIPTION_MIN_LENGTH,
  describeForSearchEngines,
  presentGeo,
  presentLicense,
  presentSchemaOrgItems,
  presentSchemaOrgPage,
  presentSchemaOrgRecord,
  presentTemporalCoverage,
  schemaOrgType,
} from '../../services/api/protocols/records/schema-org.js';
import { samplePath } from '../support/fixtures.js';

const context = {
  baseUrl: 'https://example.org',
  service: { title: 'Test catalogue', description: 'Records for tests' },
};

function record(fields: Partial<CoreRecord> = {}): CoreRecord {
  return {
    ...buildEmptyRecord('rec-1', {
      format: 'ogc-record',
      mediaType: 'application/json',
      content: '{}',
    }),
    ...fields,
  };
}

async function sampleRecords(): Promise<CoreRecord[]> {
  const files = (await listFiles(samplePath())).filter((file) => !file.endsWith('.md'));
  return files.flatMap((file) => parseDocuments(readFileSync(file, 'utf8')).records);
}

describe('schema.org JSON-LD of records', () => {
  it('gives every sample record its type and the properties Google requires', async () => {
    const records = await sampleRecords();
    expect(records.length).to.be.greaterThan(60);
    const types = new Set<string>();
    for (const sample of records) {
      const document = presentSchemaOrgRecord(sample, context);
      types.add(String(document['@type']));
      expect(document['@context'], sample.id).to.equal('https://schema.org/');
      expect(document.name, sample.id).to.be.a('string').and.not.equal('');
      const description = String(document.description);
      expect(description.length, sample.id).to.be.within(
        DESCRIPTION_MIN_LENGTH,
        DESCRIPTION_MAX_LENGTH,
      );
      expect(document.url, sample.id).to.equal(
        `https://example.org/catalogue/collections/metadata:main/items/${encodeURIComponent(sample.id)}?f=html`,
      );
      if (document['@type'] === 'Dataset') {
        expect(document.includedInDataCatalog, sample.id).to.include({ '@type': 'DataCatalog' });
      }
    }
    expect([...types].sort()).to.deep.equal(['DataCatalog', 'Dataset', 'WebAPI']);
  });

  it('chooses the type by the resource type', () => {
    expect(schemaOrgType({ type: 'series' })).to.equal('DataCatalog');
    expect(schemaOrgType({ type: 'service' })).to.equal('WebAPI');
    expect(schemaOrgType({ type: 'dataset' })).to.equal('Dataset');
    expect(schemaOrgType({ type: 'collection' })).to.equal('Dataset');
    expect(schemaOrgType({})).to.equal('Dataset');
  });

  it('keeps a long enough description and cuts a too long one at a word', () => {
    const own = 'A description that is long enough for Google Dataset Search to accept it.';
    expect(describeForSearchEngines(record({ description: own }), 'C')).to.equal(own);
    const long = 'word '.repeat(2000);
    const cut = describeForSearchEngines(record({ description: long }), 'C');
    expect(cut.length).to.be.at.most(DESCRIPTION_MAX_LENGTH);
    expect(cut.endsWith('word…')).to.equal(true);
  });

  it('completes a missing or short description from the facts of the record only', () => {
    const sparse = record({
      title: 'Lake levels',
      description: 'Levels.',
      bbox: [5, 45, 6.5, 46.25],
      time: { start: '2020-01-01T00:00:00.000Z', end: null, dateOnly: true },
      keywords: ['lakes', 'hydrology'],
      eo: { platform: 'sentinel-2a' },
    });
    expect(describeForSearchEngines(sparse, 'Test catalogue')).to.equal(
      'Levels. Dataset "Lake levels" in the catalogue "Test catalogue". Covers longitudes 5 to 6.5 ' +
        'and latitudes 45 to 46.25. From 2020-01-01. Acquired with platform sentinel-2a. ' +
        'Keywords: lakes, hydrology.',
    );
    // Nothing but an id: the sentence names it and the catalogue, nothing more.
    expect(describeForSearchEngines(record(), 'Test catalogue')).to.equal(
      'Dataset "rec-1" in the catalogue "Test catalogue".',
    );
  });

  it('writes a box as south west north east, polygons and points in latitude order', () => {
    expect(presentGeo(undefined, [5, 45, 6, 46])).to.deep.equal({
      '@type': 'GeoShape',
      box: '45 5 46 6',
    });
    expect(presentGeo(undefined, [170, -10, -170, 10])).to.deep.equal([
      { '@type': 'GeoShape', box: '-10 170 10 180' },
      { '@type': 'GeoShape', box: '-10 -180 10 -170' },
    ]);
    const polygon = {
      type: 'Polygon' as const,
      coordinates: [
        [
          [5, 45],
          [6, 45],
          [6, 46],
          [5, 45],
        ],
      ],
    };
    expect(presentGeo(polygon, [5, 45, 6, 46])).to.deep.equal({
      '@type': 'GeoShape',
      polygon: '45 5 45 6 46 6 45 5',
    });
    expect(presentGeo({ type: 'Point', coordinates: [7, 47] }, undefined)).to.deep.equal({
      '@type': 'GeoCoordinates',
      latitude: 47,
      longitude: 7,
    });
  });

  it('writes time as an ISO 8601 value or interval with open ends as ..', () => {
    const at = (time: CoreRecord['time']) => presentTemporalCoverage(record({ time }));
    expect(at({ start: '2020-01-01T00:00:00.000Z', end: null, dateOnly: true })).to.equal(
      '2020-01-01/..',
    );
    expect(at({ start: null, end: '2021-05-01T12:00:00Z' })).to.equal('../2021-05-01T12:00:00Z');
    expect(at({ start: '2021-05-01T12:00:00Z', end: '2021-05-01T12:00:00Z' })).to.equal(
      '2021-05-01T12:00:00Z',
    );
    expect(at(undefined)).to.equal(undefined);
  });

  it('reads licences as URLs, SPDX pages or named works, leaving out non-licences', () => {
    expect(presentLicense('CC-BY-4.0')).to.equal('https://spdx.org/licenses/CC-BY-4.0');
    expect(presentLicense('https://example.org/licence')).to.equal('https://example.org/licence');
    expect(presentLicense('proprietary')).to.deep.equal({
      '@type': 'CreativeWork',
      name: 'proprietary',
    });
    expect(presentLicense('other')).to.equal(undefined);
  });

  it('takes creators and publishers from the resource contacts and downloads from links', () => {
    const document = presentSchemaOrgRecord(
      record({
        contacts: [
          { organization: 'Survey', roles: ['originator'], emails: [{ value: 'a@example.org' }] },
          { name: 'Ann', organization: 'Host', roles: ['publisher'] },
          { organization: 'Metadata desk', roles: ['author'], scope: 'metadata' },
        ],
        links: [
          { href: 'https://example.org/data.tif', rel: 'enclosure', type: 'image/tiff' },
          { href: 'https://example.org/about', rel: 'related' },
        ],
        updated: '2024-02-03T04:05:06Z',
      }),
      context,
    );
    expect(document.creator).to.deep.equal({
      '@type': 'Organization',
      name: 'Survey',
      email: 'a@example.org',
    });
    expect(document.publisher).to.deep.equal({
      '@type': 'Person',
      name: 'Ann',
      affiliation: { '@type': 'Organization', name: 'Host' },
    });
    expect(document.distribution).to.deep.equal([
      {
        '@type': 'DataDownload',
        contentUrl: 'https://example.org/data.tif',
        encodingFormat: 'image/tiff',
      },
    ]);
    expect(document.dateModified).to.equal('2024-02-03T04:05:06Z');
  });

  it('lists a page as an ItemList of the records’ own nodes, positioned from the offset', () => {
    const records = [record({ id: 'a', title: 'A' }), record({ id: 'b', title: 'B' })];
    const list = presentSchemaOrgItems(
      { total: 12, records },
      { ...context, offset: 10, url: 'https://example.org/page' },
    );
    expect(list['@type']).to.equal('ItemList');
    expect(list.numberOfItems).to.equal(12);
    const elements = list.itemListElement as { position: number; item: { name: string } }[];
    expect(elements.map((element) => element.position)).to.deep.equal([11, 12]);
    const own: Record<string, unknown> = { ...presentSchemaOrgRecord(records[0]!, context) };
    delete own['@context'];
    expect(elements[0]?.item).to.deep.equal(own);
  });
});

describe('schema.org JSON-LD pages of items', () => {
  it('names this, the next and the previous page in a Link header, keeping the query', () => {
    const page = presentSchemaOrgPage(
      { total: 25, records: [record({ id: 'a' })] },
      { ...context, query: { q: 'lake', f: 'jsonld' }, offset: 10, limit: 10 },
    );
    const items = 'https://example.org/catalogue/collections/metadata:main/items';
    expect(page.linkHeader).to.equal(
      [
        `<${items}?q=lake&f=jsonld&limit=10&offset=10>; rel="self"; type="application/ld+json"`,
        `<${items}?q=lake&f=jsonld&limit=10&offset=20>; rel="next"; type="application/ld+json"`,
        `<${items}?q=lake&f=jsonld&limit=10&offset=0>; rel="prev"; type="application/ld+json"`,
      ].join(', '),
    );
    expect(page.document.url).to.equal(`${items}?q=lake&f=jsonld&limit=10&offset=10`);
    const last = presentSchemaOrgPage(
      { total: 1, records: [record({ id: 'a' })] },
      { ...context, query: {}, offset: 0, limit: 10 },
    );
    expect(last.linkHeader).to.not.include('rel="next"').and.not.include('rel="prev"');
  });
});

describe('JSON-LD in a script element', () => {
  it('escapes what could end the element or start a comment, and parses back the same', () => {
    const title = '</script><script>window.pwned=1</script><!-- & \u2028\u2029';
    const text = serializeJsonLdForScript({ name: title });
    expect(text).to.not.match(/[<>&\u2028\u2029]/);
    expect(text).to.include('\\u003c/script\\u003e');
    expect(JSON.parse(text)).to.deep.equal({ name: title });
  });
});
