import { expect } from 'chai';
import { buildEmptyRecord, type CoreRecord } from '../../../shared/records/core-record.js';
import { writeStacCollection } from '../../../shared/records/writers/stac-collection.js';
import {
  buildStacAssets,
  buildStacTime,
  STAC_EXTENSION_SCHEMAS,
  STAC_LANGUAGE_EXTENSION,
  writeStacItem,
  type StacItemLinks,
} from '../../../shared/records/writers/stac-item.js';

const LINKS: StacItemLinks = {
  self: 'https://cat.example/items/r1?f=stac',
  root: 'https://cat.example/catalogue',
  collection: (id) => `https://cat.example/items/${id}`,
};

function record(overrides: Partial<CoreRecord> = {}): CoreRecord {
  return {
    ...buildEmptyRecord('r1', {
      format: 'ogc-record',
      mediaType: 'application/geo+json',
      content: '',
    }),
    ...overrides,
  };
}

const rels = (links: { rel: string }[]): string[] => links.map((link) => link.rel);

describe('STAC Item writer', () => {
  describe('time', () => {
    it('writes an instant as datetime', () => {
      const time = { start: '2020-01-02T03:04:05.000Z', end: '2020-01-02T03:04:05.000Z' };
      expect(buildStacTime(record({ time }))).to.deep.equal({
        datetime: '2020-01-02T03:04:05.000Z',
      });
    });

    it('writes a closed interval (and a whole day) as datetime null with start and end', () => {
      const time = { start: '2020-01-01T00:00:00.000Z', end: '2020-12-31T23:59:59.999Z' };
      expect(buildStacTime(record({ time }))).to.deep.equal({
        datetime: null,
        start_datetime: '2020-01-01T00:00:00.000Z',
        end_datetime: '2020-12-31T23:59:59.999Z',
      });
    });

    it('writes a half-open interval as its one closed end', () => {
      expect(
        buildStacTime(record({ time: { start: '2020-01-01T00:00:00.000Z', end: null } })),
      ).to.deep.equal({
        datetime: '2020-01-01T00:00:00.000Z',
      });
      expect(
        buildStacTime(record({ time: { start: null, end: '2021-01-01T00:00:00.000Z' } })),
      ).to.deep.equal({
        datetime: '2021-01-01T00:00:00.000Z',
      });
    });

    it('falls back to resource dates, then record dates, marking the one it took', () => {
      expect(
        buildStacTime(record({ resourcePublished: '2019-05-01', updated: '2024-01-01T00:00:00Z' })),
      ).to.deep.equal({
        datetime: '2019-05-01T00:00:00.000Z',
        'cairn:time_fallback': 'resourcePublished',
      });
      expect(buildStacTime(record({ updated: '2024-01-01T00:00:00Z' }))).to.deep.equal({
        datetime: '2024-01-01T00:00:00.000Z',
        'cairn:time_fallback': 'updated',
      });
    });

    it('gives a record without any date the whole range, as STAC 1.0 needs both ends', () => {
      // pystac refuses `datetime: null` without start_datetime and end_datetime.
      expect(buildStacTime(record())).to.deep.equal({
        datetime: null,
        start_datetime: '0001-01-01T00:00:00Z',
        end_datetime: '9999-12-31T23:59:59Z',
        'cairn:time_fallback': 'unknown',
      });
    });
  });

  describe('from CoreRecord fields', () => {
    it('writes the STAC core members, hierarchy links and the collection', () => {
      const item = writeStacItem(
        record({
          title: 'T',
          description: 'D',
          keywords: ['a', 'b'],
          license: 'CC-BY-4.0',
          created: '2020-01-01T00:00:00Z',
          parentId: 'parent-1',
          bbox: [1, 2, 3, 4],
          time: { start: '2020-01-02T00:00:00.000Z', end: '2020-01-02T00:00:00.000Z' },
          links: [{ rel: 'describedby', href: 'https://x.example/page', type: 'text/html' }],
        }),
        LINKS,
      );
      expect(item).to.include({
        type: 'Feature',
        stac_version: '1.0.0',
        id: 'r1',
        collection: 'parent-1',
      });
      expect(item.geometry?.type).to.equal('Polygon');
      expect(item.bbox).to.deep.equal([1, 2, 3, 4]);
      expect(item.properties).to.deep.include({
        datetime: '2020-01-02T00:00:00.000Z',
        title: 'T',
        description: 'D',
        keywords: ['a', 'b'],
        license: 'CC-BY-4.0',
        created: '2020-01-01T00:00:00.000Z',
      });
      expect(rels(item.links)).to.deep.equal([
        'self',
        'root',
        'parent',
        'collection',
        'describedby',
      ]);
      expect(item.links[2]?.href).to.equal('https://cat.example/items/parent-1');
    });

    it('writes geometry null without bbox, and no collection without a parent', () => {
      const item = writeStacItem(record(), LINKS);
      expect(item.geometry).to.equal(null);
      expect(item).to.not.have.property('bbox');
      expect(item).to.not.have.property('collection');
      expect(rels(item.links)).to.deep.equal(['self', 'root']);
      expect(item.properties).to.deep.equal(buildStacTime(record()));
    });

    it('computes bbox from a geometry that has none', () => {
      const geometry = {
        type: 'LineString' as const,
        coordinates: [
          [0, 1],
          [2, -3],
        ],
      };
      expect(writeStacItem(record({ geometry }), LINKS).bbox).to.deep.equal([0, -3, 2, 1]);
    });

    it('writes EO, sat, view and processing fields with their extension schemas, valid values only', () => {
      const item = writeStacItem(
        record({
          eo: {
            platform: 'sentinel-2a',
            instrument: 'msi, other',
            cloudCover: 12.5,
            snowCover: 150,
            orbitDirection: 'DESCENDING',
            orbitNumber: 1234,
            processingLevel: 'L2A',
            illuminationAzimuthAngle: 145,
            illuminationElevationAngle: 33,
          },
        }),
        LINKS,
      );
      expect(item.properties).to.deep.include({
        platform: 'sentinel-2a',
        instruments: ['msi', 'other'],
        'eo:cloud_cover': 12.5,
        'sat:orbit_state': 'descending',
        'sat:absolute_orbit': 1234,
        'processing:level': 'L2A',
        'view:sun_azimuth': 145,
        'view:sun_elevation': 33,
      });
      expect(item.properties).to.not.have.property('eo:snow_cover');
      expect(item.stac_extensions).to.deep.equal(Object.values(STAC_EXTENSION_SCHEMAS));
      const odd = writeStacItem(
        record({ eo: { orbitDirection: 'sideways', orbitNumber: 0 } }),
        LINKS,
      );
      expect(odd.properties).to.not.have.any.keys('sat:orbit_state', 'sat:absolute_orbit');
      expect(odd.stac_extensions).to.deep.equal([]);
    });

    it('keeps extra properties without letting them replace the core ones', () => {
      const item = writeStacItem(
        record({ title: 'Real', extra: { title: 'Shadow', gsd: 10, 'proj:epsg': 32633 } }),
        LINKS,
      );
      expect(item.properties).to.deep.include({ title: 'Real', gsd: 10, 'proj:epsg': 32633 });
    });

    it('turns non-SPDX licenses into proprietary, with a link when the license is a URL', () => {
      const byUrl = writeStacItem(record({ license: 'https://example.org/licence' }), LINKS);
      expect(byUrl.properties.license).to.equal('proprietary');
      expect(byUrl.links.find((link) => link.rel === 'license')?.href).to.equal(
        'https://example.org/licence',
      );
      const text = writeStacItem(record({ license: 'Free for research use' }), LINKS);
      expect(text.properties.license).to.equal('proprietary');
    });

    it('writes providers from resource contacts with STAC roles only', () => {
      const item = writeStacItem(
        record({
          contacts: [
            {
              organization: 'ESA',
              roles: ['producer', 'pointOfContact'],
              links: [{ href: 'https://esa.int' }],
            },
            { name: 'Metadata desk', scope: 'metadata' },
          ],
        }),
        LINKS,
      );
      expect(item.properties.providers).to.deep.equal([
        { name: 'ESA', roles: ['producer'], url: 'https://esa.int' },
      ]);
    });
  });

  describe('languages (STAC Language extension)', () => {
    const multilingual = record({
      language: 'cze',
      languages: ['cs', 'en', 'ar'],
      title: 'Vodní toky',
      translations: { en: { title: 'Watercourses' }, ar: { title: 'مجاري المياه' } },
    });

    it('writes the language shown and the others as language objects, declaring the extension', () => {
      const item = writeStacItem(multilingual, LINKS);
      expect(item.stac_extensions).to.deep.equal([STAC_LANGUAGE_EXTENSION]);
      expect(item.properties.language).to.deep.equal({
        code: 'cs',
        name: 'čeština',
        alternate: 'Czech',
      });
      expect(item.properties.languages).to.deep.equal([
        { code: 'en', name: 'English' },
        { code: 'ar', name: 'العربية', alternate: 'Arabic', dir: 'rtl' },
      ]);
    });

    it('names the language a localised record is shown in first', () => {
      const shown = { ...multilingual, title: 'Watercourses', language: 'en' };
      const item = writeStacItem(shown, LINKS);
      expect((item.properties.language as { code: string }).code).to.equal('en');
      expect((item.properties.languages as { code: string }[]).map((l) => l.code)).to.deep.equal([
        'cs',
        'ar',
      ]);
    });

    it('writes a one-language record’s language without `languages`', () => {
      const item = writeStacItem(record({ language: 'ger' }), LINKS);
      expect(item.properties.language).to.deep.equal({
        code: 'de',
        name: 'Deutsch',
        alternate: 'German',
      });
      expect(item.properties).to.not.have.property('languages');
      expect(item.stac_extensions).to.deep.equal([STAC_LANGUAGE_EXTENSION]);
    });

    it('declares nothing for a record without a language, or with one no one knows', () => {
      for (const language of [undefined, 'english', 'xx']) {
        const item = writeStacItem(record({ ...(language && { language }) }), LINKS);
        expect(item.properties, String(language)).to.not.have.property('language');
        expect(item.stac_extensions, String(language)).to.deep.equal([]);
      }
    });

    it('writes the same members at the top of a collection built from a record', () => {
      const collection = writeStacCollection(
        { ...multilingual, type: 'series' },
        {
          self: 'https://cat.example/c',
          root: 'https://cat.example/',
          parent: 'https://cat.example/',
          items: 'https://cat.example/c/items',
        },
      );
      expect(collection.stac_extensions).to.deep.equal([STAC_LANGUAGE_EXTENSION]);
      expect((collection.language as { code: string }).code).to.equal('cs');
      expect((collection.languages as unknown[]).length).to.equal(2);
    });
  });

  describe('assets', () => {
    it('makes assets of enclosure and data links with unique slug keys', () => {
      const assets = buildStacAssets([
        { rel: 'enclosure', href: 'https://x/a.tif', title: 'Full Résolution', type: 'image/tiff' },
        { rel: 'enclosure', href: 'https://x/b.tif', title: 'Full résolution' },
        { rel: 'data', href: 'https://x/dir/c.nc?x=1' },
        { rel: 'DATA', href: 'https://x/' },
        { rel: 'describedby', href: 'https://x/page' },
        { rel: 'enclosure', href: 'https://x/t.png', title: 'Thumb', roles: ['thumbnail'] },
      ]);
      expect(Object.keys(assets)).to.deep.equal([
        'full-resolution',
        'full-resolution-2',
        'c-nc',
        'data',
        'thumb',
      ]);
      expect(assets['full-resolution']).to.deep.equal({
        href: 'https://x/a.tif',
        type: 'image/tiff',
        title: 'Full Résolution',
        roles: ['data'],
      });
      expect(assets.thumb?.roles).to.deep.equal(['thumbnail']);
    });
  });

  describe('from a STAC source', () => {
    const source = {
      type: 'Feature',
      stac_version: '1.0.0',
      stac_extensions: ['https://stac-extensions.github.io/projection/v1.1.0/schema.json'],
      id: 'r1',
      collection: 'old-collection',
      geometry: { type: 'Point', coordinates: [1, 2] },
      bbox: [1, 2, 1, 2],
      properties: { datetime: '2020-01-01T00:00:00Z', 'proj:epsg': 32633, 's2:tile': '33TWN' },
      links: [
        { rel: 'self', href: 'https://old.example/items/r1.json' },
        { rel: 'root', href: 'https://old.example/catalog.json' },
        { rel: 'parent', href: '../collection.json' },
        { rel: 'license', href: '../license.html' },
        { rel: 'via', href: 'https://elsewhere.example/r1' },
      ],
      assets: {
        B02: { href: './B02.jp2', roles: ['data'], 'eo:bands': [{ name: 'B02' }] },
        remote: { href: 's3://bucket/key.tif' },
      },
    };
    const stacRecord = (): CoreRecord =>
      record({
        parentId: 'new-parent',
        source: {
          format: 'stac-item',
          mediaType: 'application/geo+json',
          content: JSON.stringify(source),
        },
      });

    it('keeps the source with this catalogue’s hierarchy links and absolute hrefs', () => {
      const item = writeStacItem(stacRecord(), LINKS);
      expect(item.stac_extensions).to.deep.equal(source.stac_extensions);
      expect(item.properties).to.deep.equal(source.properties);
      expect(item.collection).to.equal('new-parent');
      expect(item.links.map((link) => [link.rel, link.href])).to.deep.equal([
        ['self', LINKS.self],
        ['root', LINKS.root],
        ['parent', 'https://cat.example/items/new-parent'],
        ['collection', 'https://cat.example/items/new-parent'],
        ['license', 'https://old.example/license.html'],
        ['via', 'https://elsewhere.example/r1'],
      ]);
      expect(item.assets.B02).to.deep.equal({
        href: 'https://old.example/items/B02.jp2',
        roles: ['data'],
        'eo:bands': [{ name: 'B02' }],
      });
      expect(item.assets.remote?.href).to.equal('s3://bucket/key.tif');
    });

    it('builds from the fields when asked to, or when the source is unreadable', () => {
      const fromFields = writeStacItem(stacRecord(), LINKS, { preferSource: false });
      expect(fromFields.properties).to.not.have.property('s2:tile');
      const broken = stacRecord();
      broken.source.content = '{not json';
      expect(writeStacItem(broken, LINKS).properties).to.deep.equal(buildStacTime(broken));
    });
  });
});
