import { expect } from 'chai';
import { findQueryable, QUERYABLES } from '../../../shared/query/queryables.js';
import { buildEmptyRecord } from '../../../shared/records/core-record.js';
import {
  presentQueryables,
  STAC_CONFORMANCE_CLASSES,
  stacQueryableName,
} from '../../../services/api/protocols/stac/capabilities.js';
import {
  decodePageToken,
  type FieldsSelection,
} from '../../../services/api/protocols/stac/parse.js';
import {
  applyFields,
  presentItemCollection,
} from '../../../services/api/protocols/stac/present.js';
import { defined } from '../../support/defined.js';

const ITEM = {
  type: 'Feature',
  stac_version: '1.0.0',
  stac_extensions: [],
  id: 'a',
  collection: 'c',
  geometry: { type: 'Point', coordinates: [0, 0] },
  bbox: [0, 0, 0, 0],
  properties: { datetime: '2020-01-01T00:00:00Z', title: 'A', 'eo:cloud_cover': 3 },
  links: [{ rel: 'self', href: 'x' }],
  assets: { data: { href: 'd' }, thumb: { href: 't' } },
};

const select = (selection: Partial<FieldsSelection>): Record<string, unknown> =>
  applyFields(ITEM, { base: 'default', include: [], exclude: [], ...selection });

describe('STAC presentation', () => {
  describe('fields', () => {
    it('returns the default set for an empty selection', () => {
      const expected = Object.fromEntries(
        Object.entries(ITEM).filter(([member]) => member !== 'stac_extensions'),
      );
      expect(select({})).to.deep.equal({
        ...expected,
        properties: { datetime: '2020-01-01T00:00:00Z' },
      });
    });

    it('adds includes to the default set, and excludes from it or from the whole item', () => {
      expect(select({ include: ['properties.title'] }).properties).to.deep.equal({
        datetime: '2020-01-01T00:00:00Z',
        title: 'A',
      });
      const full = select({ base: 'full', exclude: ['geometry', 'assets.thumb'] });
      expect(full).to.not.have.property('geometry');
      expect(full.assets).to.deep.equal({ data: { href: 'd' } });
      expect(full.properties).to.deep.equal(ITEM.properties);
      expect(select({ exclude: ['geometry'] })).to.not.have.property('geometry');
    });

    it('lets the most specific path win, and an include beat an exclude of the same path', () => {
      expect(
        select({ include: ['properties'], exclude: ['properties.title'] }).properties,
      ).to.deep.equal({ datetime: '2020-01-01T00:00:00Z', 'eo:cloud_cover': 3 });
      expect(
        select({ include: ['properties.title'], exclude: ['properties'] }).properties,
      ).to.deep.equal({ datetime: '2020-01-01T00:00:00Z', title: 'A' });
      expect(select({ include: ['geometry'], exclude: ['geometry'] })).to.have.property('geometry');
      expect(select({ exclude: ['properties.datetime'] })).to.not.have.property('properties');
    });

    it('ignores fields the item does not have', () => {
      expect(select({ include: ['properties.nothing', 'nowhere'] }).properties).to.deep.equal({
        datetime: '2020-01-01T00:00:00Z',
      });
    });
  });

  describe('ItemCollection', () => {
    const records = [buildEmptyRecord('r1', { format: 'ogc-record', mediaType: 'x', content: '' })];

    it('links next and prev pages by GET, keeping the request parameters', () => {
      const body = presentItemCollection(
        { total: 25, records },
        {
          baseUrl: 'https://cat.example',
          parents: new Set<string>(),
          method: 'GET',
          request: { q: 'sea', limit: '10', token: 'old' },
          offset: 10,
          limit: 10,
        },
      );
      expect(body).to.include({ type: 'FeatureCollection', numberMatched: 25, numberReturned: 1 });
      const links = body.links as { rel: string; href: string; method?: string }[];
      expect(links.map((link) => link.rel)).to.deep.equal(['self', 'root', 'next', 'prev']);
      const next = new URL(defined(links[2], 'the third link').href);
      expect(next.pathname).to.equal('/catalogue/search');
      expect(next.searchParams.get('q')).to.equal('sea');
      expect(decodePageToken(next.searchParams.get('token'))).to.equal(20);
      expect(links[2]?.method).to.equal('GET');
      expect(
        decodePageToken(
          new URL(defined(links[3], 'the fourth link').href).searchParams.get('token'),
        ),
      ).to.equal(0);
    });

    it('links the next page by POST with the body to send, not merged', () => {
      const body = presentItemCollection(
        { total: 5, records },
        {
          baseUrl: 'https://cat.example',
          parents: new Set<string>(),
          method: 'POST',
          request: { collections: ['c'], limit: 1 },
          offset: 0,
          limit: 1,
        },
      );
      const next = (body.links as Record<string, unknown>[]).find((link) => link.rel === 'next');
      expect(next).to.deep.include({
        method: 'POST',
        merge: false,
        href: 'https://cat.example/catalogue/search',
      });
      const nextBody = next?.body as Record<string, unknown>;
      expect(nextBody).to.deep.include({ collections: ['c'], limit: 1 });
      expect(decodePageToken(nextBody.token)).to.equal(1);
    });

    it('has no next link on the last page', () => {
      const body = presentItemCollection(
        { total: 1, records },
        {
          baseUrl: 'https://cat.example',
          parents: new Set<string>(),
          method: 'GET',
          request: {},
          offset: 0,
          limit: 10,
        },
      );
      expect((body.links as { rel: string }[]).map((link) => link.rel)).to.deep.equal([
        'self',
        'root',
      ]);
    });
  });

  describe('capabilities', () => {
    it('lists every registry queryable under a STAC name that maps back to it', () => {
      const document = presentQueryables('https://cat.example');
      expect(document).to.include({
        $schema: 'https://json-schema.org/draft/2019-09/schema',
        $id: 'https://cat.example/catalogue/queryables',
        type: 'object',
      });
      const properties = document.properties as Record<string, unknown>;
      for (const queryable of QUERYABLES) {
        const name = stacQueryableName(queryable.name);
        expect(properties, name).to.have.property(name);
        expect(findQueryable(name)?.name, name).to.equal(queryable.name);
      }
      expect(findQueryable('datetime')?.name).to.equal('start_datetime');
    });

    it('declares each STAC API class once', () => {
      expect(new Set(STAC_CONFORMANCE_CLASSES).size).to.equal(STAC_CONFORMANCE_CLASSES.length);
      expect(STAC_CONFORMANCE_CLASSES).to.include('https://api.stacspec.org/v1.0.0/core');
    });
  });
});
