import { expect } from 'chai';
import { CairnError } from '../../../shared/errors/index.js';
import { buildEmptyRecord, type CoreRecord } from '../../../shared/records/core-record.js';
import {
  writeStacCollection,
  type StacCollectionLinks,
} from '../../../shared/records/writers/stac-collection.js';
import { writeStacItem } from '../../../shared/records/writers/stac-item.js';
import {
  presentStacApiLanding,
  STAC_API_CONFORMANCE_CLASSES,
  stacFeatureUrl,
} from '../../../services/api/protocols/stac/capabilities.js';
import {
  parseCollectionItemsGet,
  parseCollectionsQuery,
} from '../../../services/api/protocols/stac/parse.js';
import {
  presentStacCollections,
  presentStacItem,
} from '../../../services/api/protocols/stac/present.js';

const LIMITS = { defaultLimit: 10, maxLimit: 100 };
const BASE = 'https://cat.example';
const LINKS: StacCollectionLinks = {
  self: `${BASE}/catalogue/stac/collections/c1`,
  root: `${BASE}/catalogue/stac`,
  parent: `${BASE}/catalogue/stac`,
  items: `${BASE}/catalogue/stac/collections/c1/items`,
};

function record(
  id: string,
  overrides: Partial<CoreRecord> = {},
  source: CoreRecord['source'] = { format: 'iso19139', mediaType: 'application/xml', content: '' },
): CoreRecord {
  return { ...buildEmptyRecord(id, source), ...overrides };
}

function expectParameterError(run: () => unknown, name: string): void {
  expect(run).to.throw(CairnError).with.property('message').that.contains(name);
}

describe('STAC API root: Collections and Features', () => {
  describe('parsing', () => {
    it('reads limit and offset of the collections list, and refuses anything else', () => {
      expect(parseCollectionsQuery({}, LIMITS)).to.deep.equal({ offset: 0, limit: 10, sort: [] });
      expect(parseCollectionsQuery({ limit: '500', offset: '3' }, LIMITS)).to.deep.equal({
        offset: 3,
        limit: 100,
        sort: [],
      });
      expectParameterError(() => parseCollectionsQuery({ bbox: '1,2,3' }, LIMITS), 'bbox');
      expectParameterError(() => parseCollectionsQuery({ intersects: '{}' }, LIMITS), 'intersects');
      expectParameterError(() => parseCollectionsQuery({ offset: '-1' }, LIMITS), 'offset');
      expectParameterError(() => parseCollectionsQuery({ limit: ['1', '2'] }, LIMITS), 'limit');
    });

    it('restricts a collection’s items to its children, and the catalogue’s to nothing', () => {
      const items = parseCollectionItemsGet({ limit: '5' }, 'c1', 'metadata:main', LIMITS);
      expect(items.query).to.include({ limit: 5 });
      expect(items.query.collections).to.deep.equal(['c1']);
      const repeated = parseCollectionItemsGet(
        { collections: 'c1' },
        'c1',
        'metadata:main',
        LIMITS,
      );
      expect(repeated.query.collections).to.deep.equal(['c1']);
      const all = parseCollectionItemsGet(
        { collections: 'metadata:main', bbox: '0,0,1,1' },
        'metadata:main',
        'metadata:main',
        LIMITS,
      );
      expect(all.query).to.not.have.property('collections');
      expect(all.query.spatial?.bbox).to.deep.equal([0, 0, 1, 1]);
      expectParameterError(
        () => parseCollectionItemsGet({ collections: 'c1,c2' }, 'c1', 'metadata:main', LIMITS),
        'collections',
      );
      expectParameterError(
        () => parseCollectionItemsGet({ nope: '1' }, 'c1', 'metadata:main', LIMITS),
        'nope',
      );
    });
  });

  describe('STAC Collections from records', () => {
    it('builds a valid collection from a record’s fields', () => {
      const collection = writeStacCollection(
        record('c1', {
          title: 'Series',
          keywords: ['a'],
          bbox: [1, 2, 3, 4],
          time: { start: '2020-01-01T00:00:00.000Z', end: null },
          license: 'Some licence text',
        }),
        LINKS,
      );
      expect(collection).to.include({
        type: 'Collection',
        stac_version: '1.0.0',
        id: 'c1',
        title: 'Series',
        description: 'Series',
        license: 'proprietary',
      });
      expect(collection.extent).to.deep.equal({
        spatial: { bbox: [[1, 2, 3, 4]] },
        temporal: { interval: [['2020-01-01T00:00:00.000Z', null]] },
      });
      const rels = (collection.links as { rel: string }[]).map((link) => link.rel);
      expect(rels).to.deep.equal(['self', 'root', 'parent', 'items']);
    });

    it('gives a record without footprint or time the whole world and an open interval', () => {
      const collection = writeStacCollection(record('bare'), LINKS);
      expect(collection.description).to.equal('bare');
      expect(collection.extent).to.deep.equal({
        spatial: { bbox: [[-180, -90, 180, 90]] },
        temporal: { interval: [[null, null]] },
      });
    });

    it('writes a STAC-sourced collection from its source with this catalogue’s links', () => {
      const source = {
        type: 'Collection',
        stac_version: '1.0.0',
        id: 'c1',
        description: 'From source',
        license: 'CC-BY-4.0',
        extent: { spatial: { bbox: [[0, 0, 1, 1]] }, temporal: { interval: [[null, null]] } },
        summaries: { platform: ['x'] },
        links: [
          { rel: 'self', href: 'https://old.example/c1.json' },
          { rel: 'item', href: './items/a.json' },
          { rel: 'license', href: './licence.html' },
        ],
      };
      const collection = writeStacCollection(
        record(
          'c1',
          {},
          {
            format: 'stac-collection',
            mediaType: 'application/json',
            content: JSON.stringify(source),
          },
        ),
        LINKS,
      );
      expect(collection).to.include({ description: 'From source', license: 'CC-BY-4.0' });
      expect(collection.summaries).to.deep.equal({ platform: ['x'] });
      const links = collection.links as { rel: string; href: string }[];
      expect(links.map((link) => link.rel)).to.deep.equal([
        'self',
        'root',
        'parent',
        'items',
        'license',
      ]);
      expect(links[4]?.href).to.equal('https://old.example/licence.html');
    });
  });

  describe('items and their links', () => {
    it('links an item to its parent only when the parent is in the catalogue', () => {
      const child = record('r1', { parentId: 'c1' });
      const inside = presentStacItem(child, BASE, new Set(['c1']));
      expect(inside.collection).to.equal('c1');
      const byRel = (rel: string) => inside.links.find((link) => link.rel === rel)?.href;
      expect(byRel('collection')).to.equal(`${BASE}/catalogue/stac/collections/c1`);
      expect(byRel('parent')).to.equal(`${BASE}/catalogue/stac/collections/c1`);
      expect(byRel('root')).to.equal(`${BASE}/catalogue/stac`);
      expect(byRel('self')).to.equal(stacFeatureUrl(BASE, 'c1', 'r1'));

      const orphan = presentStacItem(child, BASE, new Set());
      expect(orphan).to.not.have.property('collection');
      expect(orphan.links.map((link) => link.rel)).to.not.include.members(['collection', 'parent']);
      expect(orphan.links[0]?.href).to.equal(
        `${BASE}/catalogue/stac/collections/metadata:main/items/r1`,
      );
    });

    it('keeps the collection member when the caller gives no collection URLs', () => {
      const item = writeStacItem(record('r1', { parentId: 'c1' }), { self: 's', root: 'r' });
      expect(item.collection).to.equal('c1');
    });
  });

  describe('landing page and collections list', () => {
    it('is a STAC Catalog with Collections, Features and its data link', () => {
      const landing = presentStacApiLanding(BASE, { title: 'T', description: 'D' });
      expect(landing).to.include({ type: 'Catalog', id: 'cairn' });
      expect(landing.conformsTo).to.equal(STAC_API_CONFORMANCE_CLASSES);
      const links = landing.links as { rel: string; href: string }[];
      const href = (rel: string) => links.find((link) => link.rel === rel)?.href;
      expect(href('data')).to.equal(`${BASE}/catalogue/stac/collections`);
      expect(href('conformance')).to.equal(`${BASE}/catalogue/stac/conformance`);
      expect(href('root')).to.equal(`${BASE}/catalogue/stac`);
      expect(href('search')).to.equal(`${BASE}/catalogue/search`);
    });

    it('pages the list with next and prev links that keep the other parameters', () => {
      const page = presentStacCollections(BASE, {
        collections: [{ id: 'a' }, { id: 'b' }],
        total: 5,
        offset: 2,
        limit: 2,
        query: { limit: '2', offset: '2' },
      });
      const links = page.links as { rel: string; href: string }[];
      const href = (rel: string) => links.find((link) => link.rel === rel)?.href;
      expect(href('self')).to.equal(`${BASE}/catalogue/stac/collections?limit=2&offset=2`);
      expect(href('next')).to.equal(`${BASE}/catalogue/stac/collections?limit=2&offset=4`);
      expect(href('prev')).to.equal(`${BASE}/catalogue/stac/collections?limit=2`);
      expect(page).to.include({ numberMatched: 5, numberReturned: 2 });
      const last = presentStacCollections(BASE, {
        collections: [{ id: 'e' }],
        total: 5,
        offset: 4,
        limit: 2,
        query: {},
      });
      expect((last.links as { rel: string }[]).map((link) => link.rel)).to.not.include('next');
    });
  });
});
