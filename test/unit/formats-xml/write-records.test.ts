import { readFileSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { parseXmlDocuments, parseXmlRecord } from '../../../shared/records/formats/xml/index.js';
import { asMdMetadataRoot } from '../../../shared/records/writers/xml/iso19139.js';
import {
  appendCswRecord,
  appendIso19139,
  createDocument,
  serialise,
  writeAtomEntry,
  writeCswRecord,
  writeIso19139,
  type CswElementSet,
  type CswVersion,
} from '../../../shared/records/writers/xml/index.js';
import { buildEmptyRecord } from '../../../shared/records/core-record.js';
import { child, children, findText, namespace, parseXml, text } from '../../../shared/xml/index.js';
import { NS } from '../../../shared/xml/namespaces.js';
import { samplePath } from '../../support/fixtures.js';
import { requireXmllint, validate } from './xmllint.js';
import { defined } from '../../support/defined.js';

const FOLDERS = ['iso19139', 'iso19115-3', 'dublin-core-cite', 'stac'];

interface Sample {
  name: string;
  xml: string;
  record: CoreRecord;
}

function loadSamples(): Sample[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(samplePath(folder))
      .filter((file) => file.endsWith('.xml'))
      .map((file) => {
        const xml = readFileSync(samplePath(folder, file), 'utf8');
        return { name: `${folder}/${file}`, xml, record: parseXmlRecord(xml) };
      }),
  );
}

/** The record without its source, as plain JSON (undefined fields dropped). */
function withoutSource(record: CoreRecord): Record<string, unknown> {
  const copy: Partial<CoreRecord> = { ...record };
  delete copy.source;
  return JSON.parse(JSON.stringify(copy));
}

const dc = namespace(NS.dc);
const ows = namespace(NS.ows, NS.ows20);
const atom = namespace(NS.atom);
const georss = namespace(NS.georss);

/** A record from another format (as a STAC item would give), to exercise synthesis. */
function foreignRecord(): CoreRecord {
  const record = buildEmptyRecord('item & <1>', {
    format: 'stac-item',
    mediaType: 'application/geo+json',
    content: '{}',
  });
  record.type = 'dataset';
  record.title = 'Scene with "quotes" & <angles> and &gt; text';
  record.description = 'A footprint crossing nothing';
  record.keywords = ['optical', 'S2'];
  record.themes = [
    {
      scheme: 'https://example.org/themes',
      concepts: [{ id: 'S2', url: 'https://example.org/themes#s2' }],
    },
  ];
  record.updated = '2024-11-28T12:21:53.000Z';
  record.time = { start: '2024-11-28T09:23:31.024Z', end: '2024-11-28T09:23:31.024Z' };
  record.geometry = {
    type: 'Polygon',
    coordinates: [
      [
        [21, 37],
        [22, 37],
        [22, 38],
        [21, 38],
        [21, 37],
      ],
    ],
  };
  record.bbox = [21, 37, 22, 38];
  record.links = [
    { href: 'https://example.org/item.json', rel: 'self', type: 'application/geo+json' },
    {
      href: 'https://example.org/B04.tif',
      rel: 'enclosure',
      type: 'image/tiff',
      title: 'B04',
      roles: ['data'],
    },
  ];
  record.contacts = [{ organization: 'ESA', roles: ['producer', 'licensor'] }];
  record.eo = {
    platform: 'sentinel-2a',
    instrument: 'msi',
    cloudCover: 12.5,
    orbitNumber: 49123,
    orbitDirection: 'descending',
    illuminationElevationAngle: 31.2,
    processingLevel: 'L2A',
  };
  record.license = 'proprietary';
  return record;
}

describe('XML metadata writers', () => {
  let samples: Sample[] = [];

  before(function () {
    samples = loadSamples();
  });

  describe('ISO 19139', () => {
    it('returns the stored ISO 19139 source verbatim unless synthesis is forced', () => {
      const iso = samples.filter((sample) => sample.record.source.format === 'iso19139');
      expect(iso.length).to.equal(23);
      for (const sample of iso) expect(writeIso19139(sample.record)).to.equal(sample.xml);
      const forced = writeIso19139(defined(iso[0], 'a sample').record, { useSource: false });
      expect(forced).to.not.equal(iso[0]?.xml);
      expect(forced).to.match(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<gmd:MD_Metadata /);
    });

    it('round-trips every ISO 19139 sample through a synthesised gmd:MD_Metadata', () => {
      for (const sample of samples.filter((item) => item.record.source.format === 'iso19139')) {
        const synthesised = writeIso19139(sample.record, { useSource: false });
        const again = parseXmlRecord(synthesised);
        expect(again.source.format, sample.name).to.equal('iso19139');
        expect(withoutSource(again), sample.name).to.deep.equal(withoutSource(sample.record));
      }
    });

    it('keeps the Sentinel-2 EO properties through synthesis (image description + eo keywords)', () => {
      const scene = samples.find((sample) => sample.name.endsWith('Sentinel-2-scene.xml'));
      const synthesised = writeIso19139(scene!.record, { useSource: false });
      expect(synthesised).to.include('<gco:Real>0.082857</gco:Real>');
      expect(synthesised).to.include('eo:platform:Sentinel-2B');
      expect(parseXmlRecord(synthesised).eo).to.deep.equal(scene!.record.eo);
    });

    it('synthesises records of other formats, escaping text exactly', () => {
      const record = foreignRecord();
      const xml = writeIso19139(record);
      const back = parseXmlRecord(xml);
      expect(back.id).to.equal('item & <1>');
      expect(back.title).to.equal('Scene with "quotes" & <angles> and &gt; text');
      expect(back.geometry).to.deep.equal(record.geometry);
      expect(back.bbox).to.deep.equal(record.bbox);
      expect(back.time).to.deep.equal(record.time);
      expect(back.eo).to.deep.equal(record.eo);
      expect(back.keywords).to.deep.equal(['optical', 'S2']);
      expect(back.themes).to.deep.equal(record.themes);
      expect(back.license).to.equal('proprietary');
      expect(back.links).to.deep.equal([
        {
          href: 'https://example.org/B04.tif',
          rel: 'enclosure',
          type: 'image/tiff',
          title: 'B04',
        },
      ]);
      expect(back.contacts.map((contact) => contact.roles)).to.deep.equal([
        ['producer'],
        ['licensor'],
      ]);
    });

    it('embeds records in a larger document (the stored source, or a synthesised one)', () => {
      const iso = samples
        .filter((sample) => sample.record.source.format === 'iso19139')
        .slice(0, 3);
      const dublin = samples.find((sample) => sample.record.source.format === 'dublin-core');
      const document = createDocument();
      const response = document.ele(NS.csw202, 'csw:GetRecordByIdResponse');
      for (const sample of iso) appendIso19139(response, sample.record);
      appendIso19139(response, dublin!.record);
      const parsed = parseXmlDocuments(serialise(document));
      expect(parsed.failures).to.deep.equal([]);
      expect(parsed.records.map((record) => record.id)).to.deep.equal([
        ...iso.map((sample) => sample.record.id),
        dublin!.record.id,
      ]);
      parsed.records.slice(0, 3).forEach((record, index) => {
        expect(withoutSource(record)).to.deep.equal(
          withoutSource(defined(iso[index], `sample ${index}`).record),
        );
      });
    });

    it('writes a gmi:MI_Metadata source as its gmd:MD_Metadata supertype on request', () => {
      const mi = samples.filter((sample) => parseXml(sample.xml).root.local === 'MI_Metadata');
      expect(mi).to.have.length(2);
      for (const sample of mi) {
        const source = parseXml(sample.xml).root;
        const document = createDocument();
        const response = document.ele(NS.csw202, 'csw:GetRecordsResponse');
        appendIso19139(response, sample.record, { asMdMetadata: true });
        appendIso19139(response, sample.record);
        const written = serialise(document);
        const [first, second] = parseXml(written).root.children;
        const asMd = defined(first, 'the MD_Metadata copy');
        const verbatim = defined(second, 'the verbatim copy');
        expect(`${asMd.ns} ${asMd.local}`).to.equal(`${NS.gmd} MD_Metadata`);
        expect(asMd.children.map((item) => item.local)).to.deep.equal(
          source.children
            .map((item) => item.local)
            .filter((local) => local !== 'acquisitionInformation'),
        );
        expect(`${verbatim.ns} ${verbatim.local}`).to.equal(`${NS.gmi} MI_Metadata`);
        // Read back, the MD_Metadata is the same record (its id and title).
        const parsed = parseXmlDocuments(written);
        expect(parsed.failures).to.deep.equal([]);
        expect(parsed.records.map((record) => [record.id, record.title])).to.deep.equal([
          [sample.record.id, sample.record.title],
          [sample.record.id, sample.record.title],
        ]);
      }
      // Any other root is left as it is.
      const md = samples.find((sample) => parseXml(sample.xml).root.local === 'MD_Metadata')!;
      const root = parseXml(md.xml).root;
      expect(asMdMetadataRoot(root)).to.equal(root);
    });

    describe('schema validation (xmllint, ISO 19139 gmd/gmx/srv 2006-05-04)', () => {
      before(function () {
        requireXmllint();
      });

      it('synthesised gmd:MD_Metadata of every sample and of a foreign record validates', () => {
        const documents = [
          ...samples.map((sample) => ({
            name: sample.name,
            xml: writeIso19139(sample.record, { useSource: false }),
          })),
          { name: 'foreign', xml: writeIso19139(foreignRecord()) },
        ];
        const results = validate('iso19139', documents);
        const failures = results.filter((result) => !result.valid);
        expect(failures, JSON.stringify(failures, null, 2)).to.deep.equal([]);
        expect(results).to.have.length(samples.length + 1);
      });

      it('reports invalid documents (the validation is real)', () => {
        const xml = writeIso19139(defined(samples[0], 'a sample').record, {
          useSource: false,
        }).replace('<gmd:dateStamp>', '<gmd:unexpected/><gmd:dateStamp>');
        const [result] = validate('iso19139', [{ name: 'broken', xml }]);
        expect(result?.valid).to.equal(false);
        expect(result?.errors.join('\n')).to.match(/unexpected/);
      });
    });
  });

  describe('csw:Record (Dublin Core)', () => {
    const versions: CswVersion[] = ['2.0.2', '3.0.0'];
    const sets: CswElementSet[] = ['brief', 'summary', 'full'];

    it('round-trips every CITE record through csw:Record full in both CSW versions', () => {
      for (const sample of samples.filter((item) => item.record.source.format === 'dublin-core')) {
        for (const version of versions) {
          const xml = writeCswRecord(sample.record, { version, elementSet: 'full' });
          const again = parseXmlRecord(xml);
          expect(withoutSource(again), `${sample.name} ${version}`).to.deep.equal(
            withoutSource(sample.record),
          );
        }
      }
    });

    it('writes brief and summary subsets with the bbox in lat/lon order', () => {
      const sample = samples.find((item) => item.name.includes('Record_94bc9c83'))!;
      const brief = parseXml(
        writeCswRecord(sample.record, { version: '2.0.2', elementSet: 'brief' }),
      ).root;
      expect([brief.ns, brief.local]).to.deep.equal([NS.csw202, 'BriefRecord']);
      expect(brief.children.map((item) => item.local)).to.deep.equal([
        'identifier',
        'title',
        'type',
        'BoundingBox',
      ]);
      const box = child(brief, ows('BoundingBox'));
      expect(box?.attributes.find((a) => a.local === 'crs')?.value).to.equal(
        'urn:x-ogc:def:crs:EPSG:6.11:4326',
      );
      expect(text(child(box, ows('LowerCorner')))).to.equal('47.595 -4.097');
      expect(text(child(box, ows('UpperCorner')))).to.equal('51.217 0.889');

      const summary = parseXml(
        writeCswRecord(sample.record, { version: '3.0.0', elementSet: 'summary' }),
      ).root;
      expect([summary.ns, summary.local]).to.deep.equal([NS.csw30, 'SummaryRecord']);
      expect(summary.children.map((item) => item.local)).to.deep.equal([
        'identifier',
        'title',
        'type',
        'subject',
        'abstract',
        'BoundingBox',
        'TemporalExtent',
      ]);
      const summaryRecord = parseXmlRecord(
        writeCswRecord(sample.record, { version: '3.0.0', elementSet: 'summary' }),
      );
      expect(summaryRecord.bbox).to.deep.equal(sample.record.bbox);
      expect(summaryRecord.themes).to.deep.equal(sample.record.themes);
    });

    it('writes ISO records as csw:Record with creator, publisher, references and time', () => {
      const pacioos = samples.find((item) => item.name.endsWith('pacioos-NS06agg.xml'))!;
      const full = parseXml(
        writeCswRecord(pacioos.record, { version: '3.0.0', elementSet: 'full' }),
      ).root;
      expect(findText(full, dc('title'))).to.equal(
        'PacIOOS Nearshore Sensor 06: Pohnpei, Micronesia',
      );
      expect(findText(full, dc('creator'))).to.equal('Margaret McManus');
      expect(findText(full, dc('publisher'))).to.equal(
        'Pacific Islands Ocean Observing System (PacIOOS)',
      );
      expect(children(full, namespace(NS.dct)('references'))).to.have.length(8);
      const back = parseXmlRecord(
        writeCswRecord(pacioos.record, { version: '3.0.0', elementSet: 'full' }),
      );
      expect(back.time).to.deep.equal(pacioos.record.time);
      expect(back.bbox).to.deep.equal(pacioos.record.bbox);
      expect(back.keywords).to.deep.equal([
        ...pacioos.record.keywords,
        'climatologyMeteorologyAtmosphere',
      ]);
    });

    it('appends records to a GetRecords response without repeating namespace declarations', () => {
      const document = createDocument();
      const response = document.ele(NS.csw202, 'csw:GetRecordsResponse');
      response.att('http://www.w3.org/2000/xmlns/', 'xmlns:dc', NS.dc);
      response.att('http://www.w3.org/2000/xmlns/', 'xmlns:dct', NS.dct);
      response.att('http://www.w3.org/2000/xmlns/', 'xmlns:ows', NS.ows);
      const results = response.ele(NS.csw202, 'csw:SearchResults');
      const cite = samples.filter((item) => item.record.source.format === 'dublin-core');
      for (const sample of cite) {
        appendCswRecord(results, sample.record, {
          version: '2.0.2',
          elementSet: 'full',
          declareNamespaces: false,
        });
      }
      const xml = serialise(document);
      expect(xml.match(/xmlns:dc=/g)).to.have.length(1);
      const parsed = parseXmlDocuments(xml);
      expect(parsed.failures).to.deep.equal([]);
      parsed.records.forEach((record, index) => {
        expect(withoutSource(record)).to.deep.equal(
          withoutSource(defined(cite[index], `sample ${index}`).record),
        );
      });
    });

    describe('schema validation (xmllint, CSW 2.0.2 and 3.0 record.xsd)', () => {
      before(function () {
        requireXmllint();
      });

      for (const version of versions) {
        it(`brief, summary and full records of every sample validate (CSW ${version})`, () => {
          const documents = samples.flatMap((sample) =>
            sets.map((elementSet) => ({
              name: `${sample.name} ${elementSet}`,
              xml: writeCswRecord(sample.record, { version, elementSet }),
            })),
          );
          documents.push({
            name: 'foreign full',
            xml: writeCswRecord(foreignRecord(), { version, elementSet: 'full' }),
          });
          const results = validate(
            version === '2.0.2' ? 'csw-2.0.2-record' : 'csw-3.0-record',
            documents,
          );
          const failures = results.filter((result) => !result.valid);
          expect(failures, JSON.stringify(failures, null, 2)).to.deep.equal([]);
          expect(results).to.have.length(samples.length * 3 + 1);
        });
      }
    });
  });

  describe('Atom entry (OpenSearch)', () => {
    it('writes id, title, dates, categories, links, dc:identifier and georss:box', () => {
      const sample = samples.find((item) =>
        item.name.endsWith('T_aerfo_RAS_1991_GR800P001800000012.xml'),
      )!;
      const entry = parseXml(writeAtomEntry(sample.record)).root;
      expect([entry.ns, entry.local]).to.deep.equal([NS.atom, 'entry']);
      expect(findText(entry, atom('id'))).to.equal(
        'urn:cairn:record:366f6257-19eb-4f20-ba78-0698ac4aae77',
      );
      expect(findText(entry, atom('title'))).to.equal('Aerial Photos');
      expect(findText(entry, atom('updated'))).to.equal('2009-10-09T00:00:00.000Z');
      expect(findText(entry, dc('identifier'))).to.equal('366f6257-19eb-4f20-ba78-0698ac4aae77');
      expect(findText(entry, dc('date'))).to.equal(
        '2009-10-09T00:00:00.000Z/2009-10-09T23:59:59.999Z',
      );
      expect(findText(entry, georss('box'))).to.equal('38 20 40 24');
      const categories = children(entry, atom('category')).map((item) =>
        Object.fromEntries(item.attributes.map((a) => [a.local, a.value])),
      );
      expect(categories).to.deep.equal([
        { term: 'Orthoimagery', scheme: 'GEMET - INSPIRE themes, version 1.0' },
      ]);
      expect(
        children(entry, atom('link')).map((item) => item.attributes.map((a) => a.value)),
      ).to.deep.equal([['http://www.ypaat.gr', 'related']]);
    });

    it('writes the footprint as georss:polygon (lat lon) and escapes text exactly', () => {
      const xml = writeAtomEntry(foreignRecord(), {
        links: [
          {
            href: 'https://cairn.example/collections/x/items/1',
            rel: 'alternate',
            type: 'text/html',
          },
        ],
      });
      const entry = parseXml(xml).root;
      expect(findText(entry, georss('polygon'))).to.equal('37 21 37 22 38 22 38 21 37 21');
      expect(findText(entry, georss('box'))).to.equal(undefined);
      expect(findText(entry, atom('title'))).to.equal(
        'Scene with "quotes" & <angles> and &gt; text',
      );
      expect(findText(entry, atom('id'))).to.equal('urn:cairn:record:item%20%26%20%3C1%3E');
      expect(findText(entry, dc('date'))).to.equal('2024-11-28T09:23:31.024Z');
      expect(children(entry, atom('link'))[0]?.attributes[0]?.value).to.equal(
        'https://cairn.example/collections/x/items/1',
      );
    });
  });
});
