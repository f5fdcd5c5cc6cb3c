import { readFileSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import type { Bbox, CoreRecord } from '../../../shared/records/core-record.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import {
  parseDublinCore,
  parseIso19139,
  parseXmlDocuments,
  parseXmlRecord,
} from '../../../shared/records/formats/xml/index.js';
import { InvalidRecordError } from '../../../shared/errors/index.js';
import { writeOaiDc } from '../../../shared/records/writers/xml/index.js';
import { XmlParseError } from '../../../shared/xml/index.js';
import { samplePath } from '../../support/fixtures.js';
import { defined } from '../../support/defined.js';

const sample = (folder: string, name: string): string =>
  readFileSync(samplePath(folder, name), 'utf8');
const xmlFiles = (folder: string): string[] =>
  readdirSync(samplePath(folder)).filter((name) => name.endsWith('.xml'));

/** The record without its source, as plain JSON (undefined fields dropped). */
function withoutSource(record: CoreRecord): unknown {
  const copy: Partial<CoreRecord> = { ...record };
  delete copy.source;
  return JSON.parse(JSON.stringify(copy));
}

function intersects(box: Bbox, query: Bbox): boolean {
  return box[0] <= query[2] && box[2] >= query[0] && box[1] <= query[3] && box[3] >= query[1];
}

describe('XML metadata formats (parsers)', () => {
  describe('repository samples (data/samples)', () => {
    before(function () {});

    it('parses every ISO 19139, ISO 19115-3, Dublin Core and STAC-folder XML sample', () => {
      const folders = ['iso19139', 'iso19115-3', 'dublin-core-cite', 'stac'];
      let count = 0;
      for (const folder of folders) {
        for (const file of xmlFiles(folder)) {
          const xml = sample(folder, file);
          const parsed = parseXmlDocuments(xml, { name: file });
          expect(parsed.failures, `${folder}/${file}`).to.deep.equal([]);
          expect(parsed.records, `${folder}/${file}`).to.have.length(1);
          const record = defined(parsed.records[0], `${folder}/${file}`);
          expect(record.id, file).to.be.a('string').and.not.equal('');
          expect(record.source.content, file).to.equal(xml);
          expect(record.source.mediaType).to.equal('application/xml');
          count += 1;
        }
      }
      expect(count).to.equal(20 + 4 + 12 + 2);
    });

    describe('ISO 19139', () => {
      it('reads an aerial photo record (T_aerfo_RAS_1991_GR800P001800000012)', () => {
        const record = parseIso19139(sample('iso19139', 'T_aerfo_RAS_1991_GR800P001800000012.xml'));
        expect(record.id).to.equal('366f6257-19eb-4f20-ba78-0698ac4aae77');
        expect(record.source.format).to.equal('iso19139');
        expect(record.type).to.equal('dataset');
        expect(record.language).to.equal('eng');
        expect(record.title).to.equal('Aerial Photos');
        expect(record.description).to.equal('Aerial Photos');
        expect(record.updated).to.equal('2009-10-09T00:00:00.000Z');
        expect(record.resourceCreated).to.equal('2009-10-09T00:00:00.000Z');
        expect(record.bbox).to.deep.equal([20, 38, 24, 40]);
        expect(record.time).to.deep.equal({
          start: '2009-10-09T00:00:00.000Z',
          end: '2009-10-09T23:59:59.999Z',
          dateOnly: true,
        });
        expect(record.keywords).to.deep.equal(['Orthoimagery']);
        expect(record.themes).to.deep.equal([
          { scheme: 'GEMET - INSPIRE themes, version 1.0', concepts: [{ id: 'Orthoimagery' }] },
          {
            scheme:
              'http://standards.iso.org/iso/19139/resources/gmxCodelists.xml#MD_TopicCategoryCode',
            concepts: [{ id: 'geoscientificInformation' }],
          },
        ]);
        expect(record.contacts).to.deep.equal([
          {
            organization: 'YPAAT',
            emails: [{ value: 'ypaat@ypaat.gr' }],
            roles: ['pointOfContact'],
            scope: 'metadata',
          },
          {
            organization: 'YPAAT',
            emails: [{ value: 'ypaat@ypaat.gr' }],
            roles: ['owner'],
            scope: 'resource',
          },
        ]);
        expect(record.externalIds).to.deep.equal([
          { value: '366f6257-19eb-4f20-ba78-0698ac4aae77' },
          { value: 'T_aerfo_RAS_1991_GR800P001800000012.tif' },
        ]);
        expect(record.links).to.deep.equal([{ href: 'http://www.ypaat.gr', rel: 'related' }]);
        expect(record.license).to.equal('no conditions apply');
        expect(record.rights).to.equal('no limitations');
        expect(record.extra).to.include({ lineage: 'test', metadataStandardName: 'ISO19115' });
        expect(record.extra.accessConstraints).to.deep.equal(['otherRestrictions']);
      });

      it('reads a service record (srv:SV_ServiceIdentification, 3e9a8c05)', () => {
        const record = parseIso19139(sample('iso19139', '3e9a8c05.xml'));
        expect(record.id).to.equal('3e9a8c05');
        expect(record.type).to.equal('service');
        expect(record.title).to.equal('test Title');
        expect(record.description).to.equal('test Abstract');
        expect(record.bbox).to.deep.equal([19.37, 34.8, 29.61, 41.75]);
        expect(record.time).to.deep.equal({
          start: '2011-04-18T00:00:00.000Z',
          end: '2011-04-20T23:59:59.999Z',
          dateOnly: true,
        });
        expect(record.keywords).to.deep.equal([
          'Geographic viewer (humanGeographicViewer)',
          'administration',
        ]);
        expect(record.themes).to.deep.equal([
          { scheme: 'GEMET Themes, version 2.3', concepts: [{ id: 'administration' }] },
        ]);
        expect(record.extra.serviceType).to.equal('view');
        expect(record.externalIds).to.deep.equal([
          { scheme: 'ogc', value: 'http://aiolos.survey.ntua.gr' },
        ]);
        expect(record.links).to.deep.equal([
          { href: 'http://aiolos.survey.ntua.gr/geoserver/wms', rel: 'related' },
        ]);
        expect(record.contacts.map((c) => [c.organization, c.emails, c.roles])).to.deep.equal([
          ['NTUA', [{ value: 'tzotsos@gmail.com' }], ['pointOfContact']],
          ['NTUA', [{ value: 'tzotsos@gmail.com' }], ['owner']],
        ]);
        expect(record.license).to.equal('Conditions unknown');
        expect(record.rights).to.equal('no limitation');
      });

      it('reads the ISO 19115-2 Sentinel-2 scene with its EO acquisition properties', () => {
        const record = parseIso19139(sample('iso19139', 'iso_19115-2_Sentinel-2-scene.xml'));
        expect(record.id).to.equal(
          'S2B_MSIL2A_20200902T090559_N0214_R050_T34SFG_20200902T113910.SAFE',
        );
        expect(record.parentId).to.equal('TBD');
        expect(record.updated).to.equal('2020-09-02T11:39:10.000Z');
        expect(record.resourcePublished).to.equal('2020-09-02T11:39:10.000Z');
        expect(record.bbox).to.deep.equal([
          22.241087944581203, 36.95084163397443, 22.316296604618408, 37.21692395594552,
        ]);
        expect(record.time).to.deep.equal({
          start: '2020-09-02T09:05:59.024Z',
          end: '2020-09-02T09:05:59.024Z',
        });
        expect(record.eo).to.deep.equal({
          platform: 'Sentinel-2B',
          instrument: 'INS-NOBS',
          sensorType: 'S2MSI2A',
          cloudCover: 0.082857,
          processingLevel: 'Level-2A',
          productType: 'S2MSI2A',
          orbitNumber: 50,
          orbitDirection: 'DESCENDING',
          snowCover: 0,
        });
        // eo:* keywords are properties, not subject keywords.
        expect(record.keywords).to.deep.equal([
          'Orthoimagery',
          'Land cover',
          'Geographical names',
          'data set series',
          'processing',
        ]);
        expect(record.links).to.have.length(36);
        expect(record.links[0]).to.deep.equal({
          href: 's3://eodata/Sentinel-2/MSI/L2A/2020/09/02/S2B_MSIL2A_20200902T090559_N0214_R050_T34SFG_20200902T113910.SAFE/',
          rel: 'enclosure',
          title: 'product',
          description: 'product',
          protocol: 'enclosure',
        });
        expect(record.links[1]).to.include({ rel: 'enclosure', type: 'image/jp2' });
        expect(record.contacts).to.deep.equal([]);
      });

      it('reads the PacIOOS ISO 19115-2 record (two identifications, GCMD thesauri)', () => {
        const record = parseIso19139(sample('iso19139', 'pacioos-NS06agg.xml'));
        // As written in the document (more digits than a double holds).
        const lon = Number('158.22402954101562');
        const lat = Number('6.955227375030518');
        expect(record.id).to.equal('NS06agg');
        expect(record.title).to.equal('PacIOOS Nearshore Sensor 06: Pohnpei, Micronesia');
        expect(record.bbox).to.deep.equal([lon, lat, lon, lat]);
        expect(record.time).to.deep.equal({
          start: '2010-05-07T00:00:00.000Z',
          end: '2014-03-17T23:56:00.000Z',
        });
        expect(record.resourceCreated).to.equal('2011-04-12T00:00:00.000Z');
        expect(record.resourcePublished).to.equal('2011-04-19T00:00:00.000Z');
        expect(record.resourceUpdated).to.equal('2014-03-18T00:00:00.000Z');
        expect(record.themes.map((theme) => theme.scheme)).to.deep.equal([
          'GCMD Science Keywords',
          'GCMD Location Keywords',
          'GCMD Project Keywords',
          'GCMD Data Center Keywords',
          'CF-1.4',
          'http://standards.iso.org/iso/19139/resources/gmxCodelists.xml#MD_TopicCategoryCode',
        ]);
        expect(record.keywords).to.include('Oceans > Ocean Chemistry > Chlorophyll');
        expect(record.keywords).to.include('Oceans > Ocean Optics > Turbidity');
        // The document escapes "&gt;" twice; the text is the literal "&gt;".
        expect(record.keywords).to.include(
          'Federated States of Micronesia &gt; Pohnpei &gt; Pohnpei Lagoon',
        );
        expect(record.formats).to.deep.equal([{ name: 'OPeNDAP' }]);
        expect(record.links[0]).to.deep.equal({
          href: 'http://pacioos.org/metadata/browse/NS06agg.png',
          rel: 'preview',
          type: 'image/png',
          title: 'Sample image.',
        });
        expect(record.links[1]).to.deep.equal({
          href: 'http://oos.soest.hawaii.edu/thredds/dodsC/pacioos/nss/ns06agg',
          rel: 'enclosure',
          title: 'OPeNDAP',
          description: 'THREDDS OPeNDAP',
        });
        const publisher = record.contacts.find((c) => c.roles?.includes('publisher'));
        expect(publisher).to.include({
          organization: 'Pacific Islands Ocean Observing System (PacIOOS)',
          scope: 'distribution',
        });
        expect(publisher?.links?.[0]).to.include({ href: 'http://pacioos.org', type: 'text/html' });
        expect(record.contacts.filter((c) => c.name === 'Margaret McManus')).to.have.length(3);
      });

      it('reads the S2MSI1C collection record: open-ended time and distribution contact', () => {
        const record = parseXmlRecord(sample('stac', 'S2MSI1C.xml'));
        expect(record.id).to.equal('S2MSI1C');
        expect(record.title).to.equal('Sentinel-2 MSI Level 1C');
        expect(record.bbox).to.deep.equal([-180, -56, 180, 82]);
        expect(record.time).to.deep.equal({
          start: '2015-06-21T00:00:00.000Z',
          end: null,
          dateOnly: true,
        });
        expect(record.keywords).to.deep.equal(['sentinel-2', 'level-1c']);
        expect(record.extra.dataSetUri).to.equal(
          'https://sentinel.esa.int/web/sentinel/user-guides/sentinel-2-msi',
        );
        expect(
          record.contacts.map((c) => [c.name, c.organization, c.roles, c.scope]),
        ).to.deep.equal([
          ['Firstname Lastname', 'European Space Agency', ['pointOfContact'], 'resource'],
          ['Firstname Lastname', 'European Space Agency', ['distributor'], 'distribution'],
        ]);
        expect(record.contacts[0]).to.deep.include({
          position: 'Position name',
          phones: [{ value: 'TBD' }],
          addresses: [
            {
              deliveryPoint: ['TBD'],
              city: 'TBD',
              administrativeArea: 'TBD',
              postalCode: 'TBD',
              country: 'TBD',
            },
          ],
        });
        expect(record.links).to.deep.equal([
          {
            href: 'http://example.org/',
            rel: 'enclosure',
            title: 'TBD',
            description: 'TBD',
            protocol: 'OGC:WMS',
          },
        ]);
        expect(record.rights).to.equal('None');
      });

      it('reads a 19139 document stored among the 19115-3 samples as ISO 19139', () => {
        const record = parseXmlRecord(sample('iso19115-3', 'auscope-iso19139-geoprovinces.xml'));
        expect(record.source.format).to.equal('iso19139');
        expect(record.title).to.equal('ProvinceFullExtent');
        expect(record.updated).to.equal('2018-02-08T11:04:47.000Z');
        expect(record.links[0]).to.include({ protocol: 'OGC:WMS-1.1.1-http-get-map' });
        expect(record.contacts[0]).to.include({
          name: 'Peter Warren',
          organization: 'CSIRO',
          position: 'Software Engineer',
        });
      });

      it('reads the same record whatever prefixes it uses (default namespace, renamed prefix)', () => {
        const original = sample('iso19139', 'T_aerfo_RAS_1991_GR800P001800000012.xml');
        const defaulted = original
          .replace('xmlns:gmd=', 'xmlns=')
          .replace(/<gmd:/g, '<')
          .replace(/<\/gmd:/g, '</');
        const renamed = original
          .replace('xmlns:gmd=', 'xmlns:md=')
          .replace('xmlns:gco=', 'xmlns:g=')
          .replace(/<(\/?)gmd:/g, '<$1md:')
          .replace(/<(\/?)gco:/g, '<$1g:')
          .replace(/ gco:/g, ' g:');
        const expected = withoutSource(parseIso19139(original));
        expect(withoutSource(parseIso19139(defaulted))).to.deep.equal(expected);
        expect(withoutSource(parseIso19139(renamed))).to.deep.equal(expected);
      });
    });

    describe('ISO 19115-3', () => {
      it('reads the Wallonia catchments series record', () => {
        const record = parseXmlRecord(sample('iso19115-3', 'metawal.wallonie.be-catchments.xml'));
        expect(record.source.format).to.equal('iso19115-3');
        expect(record.id).to.equal('74f81503-8d39-4ec8-a49a-c76e0cd74946');
        expect(record.type).to.equal('series');
        expect(record.language).to.equal('fre');
        expect(record.title).to.equal('Protection des captages - Série');
        expect(record.created).to.equal('2019-04-02T12:32:13.000Z');
        expect(record.updated).to.equal('2023-08-08T07:34:11.366Z');
        expect(record.resourceCreated).to.equal('2000-01-01T00:00:00.000Z');
        expect(record.resourceUpdated).to.equal('2023-07-31T00:00:00.000Z');
        expect(record.resourcePublished).to.equal('2022-11-08T00:00:00.000Z');
        expect(record.bbox).to.deep.equal([2.75, 49.45, 6.5, 50.85]);
        const walloon = record.themes.find(
          (theme) =>
            theme.scheme === 'https://metawal.wallonie.be/thesaurus/theme-geoportail-wallon',
        );
        expect(walloon?.concepts).to.deep.equal([
          {
            id: 'Sol et sous-sol',
            url: 'https://metawal.wallonie.be/thesaurus/theme-geoportail-wallon#SubThemesGeoportailWallon/1030',
          },
          {
            id: 'Eau',
            url: 'https://metawal.wallonie.be/thesaurus/theme-geoportail-wallon#SubThemesGeoportailWallon/1020',
          },
        ]);
        expect(record.themes.at(-1)?.concepts).to.deep.equal([
          { id: 'geoscientificInformation' },
          { id: 'inlandWaters' },
        ]);
        expect(record.keywords).to.include.members(['Eau', 'captage', 'WalOnMap']);
        expect(record.formats).to.deep.equal([
          { name: 'ESRI Shapefile (.shp)', version: '-', mediaType: 'application/x-shapefile' },
          {
            name: 'ESRI File Geodatabase (.fgdb)',
            version: '10.x',
            mediaType: 'application/x-filegdb',
          },
        ]);
        expect(record.contacts[0]).to.deep.include({
          name: 'Véronique Willame',
          phones: [{ value: '+32 (0)81/335923' }],
          emails: [{ value: 'veronique.willame@spw.wallonie.be' }],
          roles: ['pointOfContact'],
          scope: 'metadata',
        });
        expect(record.externalIds).to.deep.equal([
          { scheme: 'BE.SPW.INFRASIG.GINET', value: 'PROTECT_CAPT' },
          {
            scheme: 'http://geodata.wallonie.be/id/',
            value: '74f81503-8d39-4ec8-a49a-c76e0cd74946',
          },
        ]);
        expect(record.links[0]).to.deep.equal({
          href: 'https://metawal.wallonie.be/geonetwork/srv/api/records/74f81503-8d39-4ec8-a49a-c76e0cd74946',
          rel: 'alternate',
        });
        expect(record.links.find((link) => link.protocol === 'OGC:WMS')).to.include({
          title: 'Service de visualisation WMS',
        });
        expect(record.license).to.equal(
          "Les conditions générales d'accès s’appliquent.; Les conditions générales d'utilisation s'appliquent.",
        );
      });

      it('reads the Wallonia service record', () => {
        const record = parseXmlRecord(sample('iso19115-3', 'metawal.wallonie.be-srv.xml'));
        expect(record.type).to.equal('service');
        expect(record.extra).to.include({ serviceType: 'view', couplingType: 'tight' });
        expect(record.extra.operatesOn).to.have.length(11);
        expect(record.bbox).to.deep.equal([2.75, 49.45, 6.51, 50.85]);
        expect(record.links.find((link) => link.protocol === 'OGC:WMS')?.href).to.equal(
          'https://geoservices.test.wallonie.be/geoserver/inspire_hh/ows?service=WMS&version=1.3.0&request=GetCapabilities',
        );
      });

      it('reads the AuScope 3D model record (CI_Responsibility parties, licence)', () => {
        const record = parseXmlRecord(sample('iso19115-3', 'auscope-3d-model.xml'));
        expect(record.id).to.equal('5ebc3cb7-a3b5-4760-a8ff-851d5d5beb32');
        expect(record.title).to.equal('3D geological model of the Otway and Torquay Basin 2011');
        expect(record.type).to.equal('dataset');
        expect(record.bbox).to.deep.equal([143, -39.4, 144, -38.4]);
        expect(record.license).to.equal('https://creativecommons.org/licenses/by/4.0/');
        expect(record.contacts[0]).to.deep.include({
          organization: 'Earth Resources Victoria',
          name: 'Anthony Hurst',
          position: 'Executive Director, Earth Resources Policy and Programs',
          phones: [{ value: '1300 366 356' }],
          roles: ['pointOfContact'],
          scope: 'metadata',
        });
        expect(
          record.contacts
            .filter((c) => c.scope === 'resource')
            .map((c) => [c.name ?? c.organization, c.roles]),
        ).to.deep.equal([
          ['AuScope', ['funder']],
          ['Earth Resources Victoria', ['publisher']],
          ['P.B. SKLADZIEN', ['author']],
          ['C. Jorand', ['coAuthor']],
          ['A. Krassay', ['collaborator']],
          ['L. Hall', ['contributor']],
        ]);
        expect(record.links.slice(1).map((link) => link.title)).to.deep.equal([
          'View Reports',
          'Download Metadata and 3D model data',
          '3D Geological Model',
        ]);
      });
    });

    describe('Dublin Core (CITE csw:Record)', () => {
      const cite = (id: string): CoreRecord =>
        parseDublinCore(sample('dublin-core-cite', `Record_${id}.xml`));

      it('reads the ows:BoundingBox in EPSG:4326 URN as latitude/longitude', () => {
        expect(cite('1ef30a8b-876d-4828-9246-c37ab4510bbd').bbox).to.deep.equal([
          13.754, 60.042, 17.92, 68.41,
        ]);
        expect(cite('94bc9c83-97f6-4b40-9eb8-a8e8787a5c63').bbox).to.deep.equal([
          -4.097, 47.595, 0.889, 51.217,
        ]);
        // pycsw / CITE: bbox=-6.17,44.79,17.92,68.41 matches exactly three records.
        const query: Bbox = [-6.17, 44.79, 17.92, 68.41];
        const hits = xmlFiles('dublin-core-cite')
          .map((file) => parseDublinCore(sample('dublin-core-cite', file)))
          .filter((record) => record.bbox && intersects(record.bbox, query));
        expect(hits.map((record) => record.id).sort()).to.deep.equal([
          'urn:uuid:1ef30a8b-876d-4828-9246-c37ab4510bbd',
          'urn:uuid:94bc9c83-97f6-4b40-9eb8-a8e8787a5c63',
          'urn:uuid:9a669547-b69b-469f-a11f-2d875366bbdc',
        ]);
      });

      it('reads title, type, subjects with schemes, formats, dates, relations and spatial', () => {
        const image = cite('19887a8a-f6b0-4a63-ae56-7fba0e17801f');
        expect(image.source.format).to.equal('dublin-core');
        expect(image.title).to.equal('Lorem ipsum');
        expect(image.type).to.equal('http://purl.org/dc/dcmitype/Image');
        expect(image.formats).to.deep.equal([
          { name: 'image/svg+xml', mediaType: 'image/svg+xml' },
        ]);
        expect(image.keywords).to.deep.equal(['Tourism--Greece']);
        expect(image.extra.spatial).to.deep.equal(['GR-22']);
        expect(image.description).to.equal(
          'Quisque lacus diam, placerat mollis, pharetra in, commodo sed, augue. Duis iaculis arcu vel arcu.',
        );

        const vegetation = cite('6a3de50b-fa66-4b58-a0e6-ca146fdd18d4');
        expect(vegetation.themes).to.deep.equal([
          { scheme: 'http://www.digest.org/2.1', concepts: [{ id: 'Vegetation' }] },
        ]);
        expect(vegetation.links).to.deep.equal([
          { href: 'urn:uuid:94bc9c83-97f6-4b40-9eb8-a8e8787a5c63', rel: 'related' },
        ]);

        const text = cite('e9330592-0932-474b-be34-c3a3bb67c7db');
        expect(text.title).to.equal('Fuscé vitae ligulä');
        expect(text.time).to.deep.equal({
          start: '2003-05-09T00:00:00.000Z',
          end: '2003-05-09T23:59:59.999Z',
          dateOnly: true,
        });
        expect(cite('9a669547-b69b-469f-a11f-2d875366bbdc').title).to.equal('Ñunç elementum');
      });
    });

    describe('collections of records', () => {
      it('reads a csw:GetRecordsResponse with records of several formats, one of them broken', () => {
        const stripDeclaration = (xml: string): string => xml.replace(/^<\?xml[^>]*\?>\s*/, '');
        const dcRecords = xmlFiles('dublin-core-cite').map((file) =>
          stripDeclaration(sample('dublin-core-cite', file))
            // Namespaces declared once on the wrapper, as servers write them.
            .replace(/\s+xmlns:(csw|ows|dc|dct|xsd)="[^"]*"/g, ''),
        );
        const iso = stripDeclaration(sample('iso19139', 'test.xml'));
        const broken = '<csw:Record><dc:title>no identifier</dc:title></csw:Record>';
        const response = [
          '<?xml version="1.0" encoding="UTF-8"?>',
          '<csw:GetRecordsResponse xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"',
          ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/"',
          ' xmlns:ows="http://www.opengis.net/ows" xmlns:xsd="http://www.w3.org/2001/XMLSchema">',
          '<csw:SearchStatus timestamp="2024-01-01T00:00:00Z"/>',
          '<csw:SearchResults numberOfRecordsMatched="14" numberOfRecordsReturned="14" nextRecord="0">',
          ...dcRecords.slice(0, 6),
          broken,
          iso,
          ...dcRecords.slice(6),
          '</csw:SearchResults></csw:GetRecordsResponse>',
        ].join('\n');

        const parsed = parseXmlDocuments(response, { name: 'page-1' });
        expect(parsed.records).to.have.length(13);
        expect(parsed.failures).to.deep.equal([
          {
            name: 'page-1[6]',
            reason: 'Dublin Core record has no identifier (dc:identifier is missing or empty)',
          },
        ]);
        expect(parsed.records[6]?.id).to.equal('437ae0a2-06e2-4015-b296-a66e7f407bf2');
        expect(parsed.records[6]?.source.format).to.equal('iso19139');
        for (const record of parsed.records) {
          // Each source is a standalone document that reads back to the same record.
          const again = parseXmlRecord(record.source.content);
          expect(withoutSource(again)).to.deep.equal(withoutSource(record));
        }
        const direct = parseDublinCore(
          sample('dublin-core-cite', 'Record_1ef30a8b-876d-4828-9246-c37ab4510bbd.xml'),
        );
        const fromPage = parsed.records.find((record) => record.id === direct.id);
        expect(withoutSource(fromPage as CoreRecord)).to.deep.equal(withoutSource(direct));
      });
    });
  });

  describe('synthetic documents', () => {
    it("reads OAI-PMH's oai_dc:dc as Dublin Core, and writes it back the same", () => {
      const document =
        '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
        '<dc:title>Rivers</dc:title><dc:identifier>rivers-1</dc:identifier><dc:type>dataset</dc:type>' +
        '<dc:subject>hydrology</dc:subject></oai_dc:dc>';
      const parsed = parseXmlDocuments(document, { name: 'oai' });
      expect(parsed.failures).to.deep.equal([]);
      const record = defined(parsed.records[0], 'the record');
      expect(record).to.include({ id: 'rivers-1', title: 'Rivers', type: 'dataset' });
      expect(record.keywords).to.deep.equal(['hydrology']);
      expect(record.source.format).to.equal('dublin-core');
      const again = parseXmlRecord(writeOaiDc(record));
      expect(again).to.include({ id: 'rivers-1', title: 'Rivers', type: 'dataset' });
      expect(again.keywords).to.deep.equal(['hydrology']);
    });

    it('cuts records out of wrappers that declare a default namespace for them', () => {
      const wrapper =
        '<results xmlns:x="urn:wrapper"><x:page><MD_Metadata xmlns="http://www.isotc211.org/2005/gmd"' +
        ' xmlns:gco="http://www.isotc211.org/2005/gco"><fileIdentifier><gco:CharacterString>a</gco:CharacterString>' +
        '</fileIdentifier></MD_Metadata></x:page><gmd:list xmlns:gmd="http://www.isotc211.org/2005/gmd"' +
        ' xmlns:gco="http://www.isotc211.org/2005/gco"><gmd:MD_Metadata><gmd:fileIdentifier>' +
        '<gco:CharacterString>b</gco:CharacterString></gmd:fileIdentifier></gmd:MD_Metadata></gmd:list></results>';
      const parsed = parseXmlDocuments(wrapper, { name: 'w' });
      expect(parsed.failures).to.deep.equal([]);
      expect(parsed.records.map((record) => record.id)).to.deep.equal(['a', 'b']);
      expect(parsed.records[1]?.source.content).to.match(
        /^<gmd:MD_Metadata xmlns:gmd="http:\/\/www.isotc211.org\/2005\/gmd" xmlns:gco=/,
      );
      expect(
        parseXmlRecord(defined(parsed.records[1], 'the second record').source.content).id,
      ).to.equal('b');
      const forced = parseXmlDocuments(wrapper, { name: 'w', format: 'dublin-core' });
      expect(forced.records).to.deep.equal([]);
      expect(forced.failures.map((failure) => failure.reason)).to.deep.equal([
        'expected a dublin-core record but the root element is {http://www.isotc211.org/2005/gmd}MD_Metadata',
        'expected a dublin-core record but the root element is {http://www.isotc211.org/2005/gmd}MD_Metadata',
      ]);
    });

    const iso = (body: string, root = 'gmd:MD_Metadata'): string =>
      `<${root} xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco"` +
      ` xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:gmi="http://www.isotc211.org/2005/gmi">` +
      `<gmd:fileIdentifier><gco:CharacterString>synthetic-1</gco:CharacterString></gmd:fileIdentifier>${body}</${root}>`;
    const box = (w: number, e: number, s: number, n: number): string =>
      `<gmd:geographicElement><gmd:EX_GeographicBoundingBox>` +
      `<gmd:westBoundLongitude><gco:Decimal>${w}</gco:Decimal></gmd:westBoundLongitude>` +
      `<gmd:eastBoundLongitude><gco:Decimal>${e}</gco:Decimal></gmd:eastBoundLongitude>` +
      `<gmd:southBoundLatitude><gco:Decimal>${s}</gco:Decimal></gmd:southBoundLatitude>` +
      `<gmd:northBoundLatitude><gco:Decimal>${n}</gco:Decimal></gmd:northBoundLatitude>` +
      `</gmd:EX_GeographicBoundingBox></gmd:geographicElement>`;
    const ident = (extent: string): string =>
      `<gmd:identificationInfo><gmd:MD_DataIdentification><gmd:extent><gmd:EX_Extent>${extent}` +
      `</gmd:EX_Extent></gmd:extent></gmd:MD_DataIdentification></gmd:identificationInfo>`;

    it('reads an EX_BoundingPolygon (lat/lon EPSG URN) as a GeoJSON footprint', () => {
      const polygon =
        `<gmd:geographicElement><gmd:EX_BoundingPolygon><gmd:polygon>` +
        `<gml:Polygon gml:id="p1" srsName="urn:ogc:def:crs:EPSG::4326"><gml:exterior><gml:LinearRing>` +
        `<gml:posList>10 20 10 21 11 21 11 20 10 20</gml:posList>` +
        `</gml:LinearRing></gml:exterior></gml:Polygon></gmd:polygon></gmd:EX_BoundingPolygon></gmd:geographicElement>`;
      const record = parseIso19139(iso(ident(polygon)));
      expect(record.geometry).to.deep.equal({
        type: 'Polygon',
        coordinates: [
          [
            [20, 10],
            [21, 10],
            [21, 11],
            [20, 11],
            [20, 10],
          ],
        ],
      });
      expect(record.bbox).to.deep.equal([20, 10, 21, 11]);
    });

    it('unions bounding boxes, across the antimeridian too, and skips exclusions', () => {
      expect(parseIso19139(iso(ident(box(0, 10, 0, 10) + box(20, 30, -5, 5)))).bbox).to.deep.equal([
        0, -5, 30, 10,
      ]);
      expect(
        parseIso19139(iso(ident(box(170, -170, 0, 10) + box(160, 175, 5, 20)))).bbox,
      ).to.deep.equal([160, 0, -170, 20]);
      const exclusion = box(50, 60, 50, 60).replace(
        '<gmd:EX_GeographicBoundingBox>',
        '<gmd:EX_GeographicBoundingBox><gmd:extentTypeCode><gco:Boolean>false</gco:Boolean></gmd:extentTypeCode>',
      );
      expect(parseIso19139(iso(ident(box(0, 1, 0, 1) + exclusion))).bbox).to.deep.equal([
        0, 0, 1, 1,
      ]);
    });

    it('reads time instants, open periods and GML begin/end instants', () => {
      const temporal = (primitive: string): string =>
        `<gmd:temporalElement><gmd:EX_TemporalExtent><gmd:extent>${primitive}</gmd:extent></gmd:EX_TemporalExtent></gmd:temporalElement>`;
      const instant = temporal(
        '<gml:TimeInstant gml:id="t1"><gml:timePosition>2021-03-04T05:06:07Z</gml:timePosition></gml:TimeInstant>',
      );
      expect(parseIso19139(iso(ident(instant))).time).to.deep.equal({
        start: '2021-03-04T05:06:07.000Z',
        end: '2021-03-04T05:06:07.000Z',
      });
      const open = temporal(
        '<gml:TimePeriod gml:id="t2"><gml:beginPosition>2020-01-01T00:00:00Z</gml:beginPosition>' +
          '<gml:endPosition indeterminatePosition="now"/></gml:TimePeriod>',
      );
      expect(parseIso19139(iso(ident(open))).time).to.deep.equal({
        start: '2020-01-01T00:00:00.000Z',
        end: null,
      });
      const nested = temporal(
        '<gml:TimePeriod gml:id="t3"><gml:begin><gml:TimeInstant gml:id="t4"><gml:timePosition>2019-01-01</gml:timePosition></gml:TimeInstant></gml:begin>' +
          '<gml:end><gml:TimeInstant gml:id="t5"><gml:timePosition>2019-12-31</gml:timePosition></gml:TimeInstant></gml:end></gml:TimePeriod>',
      );
      expect(parseIso19139(iso(ident(nested))).time).to.deep.equal({
        start: '2019-01-01T00:00:00.000Z',
        end: '2019-12-31T23:59:59.999Z',
        dateOnly: true,
      });
    });

    it('reads CSW 3.0 records: ows 2.0 boxes, WGS84BoundingBox, TemporalExtent, Summary/Brief', () => {
      const record = parseDublinCore(
        '<csw30:SummaryRecord xmlns:csw30="http://www.opengis.net/cat/csw/3.0" xmlns:dc="http://purl.org/dc/elements/1.1/"' +
          ' xmlns:ows20="http://www.opengis.net/ows/2.0"><dc:identifier>id-3</dc:identifier><dc:title>T</dc:title>' +
          '<ows20:WGS84BoundingBox><ows20:LowerCorner>5 45</ows20:LowerCorner><ows20:UpperCorner>6 46</ows20:UpperCorner></ows20:WGS84BoundingBox>' +
          '<ows20:BoundingBox crs="http://www.opengis.net/def/crs/EPSG/0/4326"><ows20:LowerCorner>44 4</ows20:LowerCorner><ows20:UpperCorner>45 5</ows20:UpperCorner></ows20:BoundingBox>' +
          '<csw30:TemporalExtent><csw30:begin>2001-01-01T00:00:00Z</csw30:begin></csw30:TemporalExtent></csw30:SummaryRecord>',
      );
      expect(record.bbox).to.deep.equal([4, 44, 6, 46]);
      expect(record.time).to.deep.equal({ start: '2001-01-01T00:00:00.000Z', end: null });
      const brief = parseXmlRecord(
        '<BriefRecord xmlns="http://www.opengis.net/cat/csw/2.0.2"><identifier xmlns="http://purl.org/dc/elements/1.1/">b</identifier></BriefRecord>',
      );
      expect(brief.id).to.equal('b');
    });

    it('refuses unknown formats, missing identifiers and unsafe XML with a reason', () => {
      expect(() => parseXmlRecord('<rss><channel/></rss>')).to.throw(
        InvalidRecordError,
        /not a known XML metadata format: root element \{\}rss/,
      );
      expect(() =>
        parseIso19139(
          '<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"><gmd:fileIdentifier/></gmd:MD_Metadata>',
        ),
      ).to.throw(InvalidRecordError, /no identifier \(gmd:fileIdentifier is missing or empty\)/);
      expect(() =>
        parseXmlRecord(
          '<mdb:MD_Metadata xmlns:mdb="http://standards.iso.org/iso/19115/-3/mdb/2.0"/>',
        ),
      ).to.throw(InvalidRecordError, /mdb:metadataIdentifier is missing/);
      expect(() =>
        parseIso19139('<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"/>'),
      ).to.throw(InvalidRecordError, /expected a iso19139 record/);
      expect(() => parseXmlRecord('<!DOCTYPE x [<!ENTITY a "b">]><x/>')).to.throw(
        XmlParseError,
        /entities/,
      );
      const failed = parseXmlDocuments('<!DOCTYPE x SYSTEM "http://evil.example/x.dtd"><x/>', {
        name: 'upload.xml',
      });
      expect(failed.records).to.deep.equal([]);
      expect(failed.failures).to.have.length(1);
      expect(failed.failures[0]?.name).to.equal('upload.xml');
      expect(failed.failures[0]?.reason).to.match(/external DTD/);
      expect(parseXmlDocuments('<feed><entry/></feed>').failures[0]?.reason).to.match(
        /no records inside/,
      );
    });
  });

  describe('nesting limits by format', () => {
    /** A CITE record inside `levels` wrapper elements. */
    const wrapped = (levels: number): string =>
      '<w>'.repeat(levels) +
      sample('dublin-core-cite', 'Record_19887a8a-f6b0-4a63-ae56-7fba0e17801f.xml').replace(
        /^<\?xml[^>]*>/,
        '',
      ) +
      '</w>'.repeat(levels);

    it('holds XML to its own element depth, not the JSON depth limit', () => {
      // 70 wrappers: deeper than a JSON_DEPTH_LIMIT of 64, within XML's 128 elements.
      const parsed = parseDocuments(wrapped(70), { maxDepth: 64 });
      expect(parsed.failures).to.deep.equal([]);
      expect(parsed.records.map((record) => record.id)).to.deep.equal([
        'urn:uuid:19887a8a-f6b0-4a63-ae56-7fba0e17801f',
      ]);
      const tooDeep = parseDocuments(wrapped(130), { maxDepth: 64 });
      expect(tooDeep.records).to.deep.equal([]);
      expect(defined(tooDeep.failures[0], 'a failure').reason).to.match(/limit of 128/);
    });
  });
});
