import { readFileSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { samplePath } from '../support/fixtures.js';
import { defined } from '../support/defined.js';

const stacFile = (name: string): string => readFileSync(samplePath('stac', name), 'utf8');

describe('JSON metadata formats', () => {
  describe('repository samples (data/samples)', () => {
    before(function () {});

    it('parses every JSON sample without failures', () => {
      const files = readdirSync(samplePath('stac')).filter((name) => name.endsWith('.json'));
      expect(files.length).to.be.greaterThan(20);
      for (const file of files) {
        const parsed = parseDocuments(stacFile(file), { name: file });
        expect(parsed.failures, file).to.deep.equal([]);
        expect(parsed.records, file).to.have.length(1);
      }
    });

    it('reads a Sentinel-2 STAC Item: time, bbox, parent collection and EO properties', () => {
      const name = 'S2A_MSIL2A_20241128T092331_R093_T34SEJ_20241128T122153.json';
      const record = defined(parseDocuments(stacFile(name)).records[0], 'the record');
      const source = JSON.parse(stacFile(name));
      expect(record.id).to.equal(source.id);
      expect(record.source.format).to.equal('stac-item');
      expect(record.parentId).to.equal(source.collection);
      expect(record.time).to.deep.equal({
        start: '2024-11-28T09:23:31.024Z',
        end: '2024-11-28T09:23:31.024Z',
      });
      expect(record.bbox).to.deep.equal(source.bbox);
      expect(record.eo).to.include({
        platform: 'Sentinel-2A',
        instrument: 'msi',
        cloudCover: 5.818298,
        orbitDirection: 'descending',
        productType: 'S2MSI2A',
      });
      expect(record.extra['s2:mgrs_tile']).to.equal('34SEJ');
      const assets = record.links.filter((link) => link.rel === 'enclosure');
      const assetHrefs = Object.values(source.assets as Record<string, { href: string }>).map(
        (a) => a.href,
      );
      expect(assets.map((asset) => asset.href)).to.deep.equal(assetHrefs);
    });

    it('reads a STAC Collection with its extent, providers and open-ended interval', () => {
      const record = defined(
        parseDocuments(stacFile('sentinel-2-l2a.json')).records[0],
        'the record',
      );
      expect(record.type).to.equal('collection');
      expect(record.bbox).to.deep.equal([-180, -90, 180, 90]);
      expect(record.time).to.deep.equal({ start: '2015-06-27T10:25:31.000Z', end: null });
      expect(record.contacts.map((c) => c.organization)).to.deep.equal([
        'ESA',
        'Esri',
        'Microsoft',
      ]);
    });

    it('reads an OGC API record: time interval with an open end, externalIds, language, themes', () => {
      const record = defined(
        parseDocuments(stacFile('woudc-total-column-ozone-totalozone.json')).records[0],
        'the record',
      );
      expect(record.source.format).to.equal('ogc-record');
      expect(record.type).to.equal('dataset');
      expect(record.title).to.equal('Total Ozone - daily observations');
      expect(record.time).to.deep.equal({ start: '1924-08-17T00:00:00.000Z', end: null });
      expect(record.language).to.equal('en-CA');
      expect(record.externalIds[0]?.scheme).to.equal('WMO:WIS');
      expect(record.keywords).to.include('dobson');
      expect(record.themes.length).to.be.greaterThan(0);
      expect(record.bbox).to.deep.equal([-180, -90, 180, 90]);
    });
  });

  it('reads STAC times in any year 0000–9999, but not the range written for an unknown time', () => {
    const item = (properties: Record<string, unknown>) =>
      JSON.stringify({
        type: 'Feature',
        stac_version: '1.0.0',
        id: 'i',
        geometry: null,
        properties,
        links: [],
        assets: {},
      });
    const early = parseDocuments(
      item({
        datetime: null,
        start_datetime: '0001-01-01T00:00:00Z',
        end_datetime: '0099-12-31T00:00:00Z',
      }),
    );
    expect(early.records[0]?.time).to.deep.equal({
      start: '0001-01-01T00:00:00.000Z',
      end: '0099-12-31T00:00:00.000Z',
    });
    // What this catalogue's STAC writer gives a record without any date (0001–9999, marked).
    const unknown = parseDocuments(
      item({
        datetime: null,
        start_datetime: '0001-01-01T00:00:00Z',
        end_datetime: '9999-12-31T23:59:59Z',
        'cairn:time_fallback': 'unknown',
      }),
    );
    expect(unknown.failures).to.deep.equal([]);
    expect(unknown.records[0]?.time).to.equal(undefined);
  });

  it('splits FeatureCollections and NDJSON, rejecting bad members by name and keeping the rest', () => {
    const good = { type: 'Feature', id: 'a', geometry: null, properties: { title: 'A' } };
    const collection = {
      type: 'FeatureCollection',
      features: [
        good,
        { type: 'Feature', geometry: null, properties: {} },
        { ...good, id: 'b', geometry: { type: 'Point' } },
      ],
    };
    const parsed = parseDocuments(JSON.stringify(collection), { name: 'batch.json' });
    expect(parsed.records.map((r) => r.id)).to.deep.equal(['a']);
    expect(parsed.failures.map((f) => f.name)).to.deep.equal([
      'batch.json[1]',
      'batch.json[2] (id b)',
    ]);
    expect(parsed.failures[0]?.reason).to.contain('no "id"');
    expect(parsed.failures[1]?.reason).to.contain('invalid GeoJSON geometry');

    const ndjson = [good, { ...good, id: 'c' }].map((f) => JSON.stringify(f)).join('\n');
    expect(parseDocuments(ndjson).records.map((r) => r.id)).to.deep.equal(['a', 'c']);
  });

  it("keeps a record's own text as its source; collection members keep their compact JSON", () => {
    const good = { type: 'Feature', id: 'a', geometry: null, properties: { title: 'A' } };
    const spaced =
      '{ "type": "Feature", "id": "a", "geometry": null, "properties": { "title": "A" } }';
    const lines = [spaced, JSON.stringify({ ...good, id: 'b' })].join('\r\n');
    expect(parseDocuments(lines).records.map((r) => r.source.content)).to.deep.equal([
      spaced,
      JSON.stringify({ ...good, id: 'b' }),
    ]);
    const pretty = JSON.stringify(good, null, 2);
    expect(parseDocuments(`\n${pretty}\n`).records[0]?.source.content).to.equal(pretty);
    const collection = { type: 'FeatureCollection', features: [good] };
    expect(parseDocuments(JSON.stringify(collection, null, 2)).records[0]?.source.content).to.equal(
      JSON.stringify(good),
    );
  });

  it('rejects a malformed NDJSON line by its number and keeps the other lines', () => {
    const good = { type: 'Feature', id: 'a', geometry: null, properties: { title: 'A' } };
    const lines = [JSON.stringify(good), '{"type": "Feature", "id": "broken"', '', '[1, 2'];
    lines.push(JSON.stringify({ ...good, id: 'd' }));
    const parsed = parseDocuments(lines.join('\r\n'), { name: 'part.ndjson' });
    expect(parsed.records.map((r) => r.id)).to.deep.equal(['a', 'd']);
    expect(parsed.failures.map((f) => f.name)).to.deep.equal([
      'part.ndjson line 2',
      'part.ndjson line 4',
    ]);
    for (const failure of parsed.failures) expect(failure.reason).to.contain('malformed JSON');
  });

  it('names malformed JSON, unknown shapes and oversize documents', () => {
    expect(parseDocuments('{"type": "Feature",', { name: 'x' }).failures[0]?.reason).to.contain(
      'malformed JSON',
    );
    expect(parseDocuments('{"type": "Banana"}').failures[0]?.reason).to.contain(
      'not a known JSON metadata format',
    );
    expect(parseDocuments('hello').failures[0]?.reason).to.contain('neither JSON nor XML');
    const big = JSON.stringify({
      type: 'Feature',
      id: 'x',
      properties: { description: 'x'.repeat(2000) },
    });
    expect(parseDocuments(big, { maxBytes: 1000 }).failures[0]?.reason).to.contain(
      '1000-byte limit',
    );
  });
});
