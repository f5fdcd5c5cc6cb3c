/**
 * The properties an engine catalogue learned, as read from its index mapping
 * (shared/search/engine/learned-properties.ts): names decoded from their field segments, core
 * queryables left out, JSON types and sortability from the mapping types, at most the cap.
 */
import { expect } from 'chai';
import { decodeFieldName, encodeFieldName } from '../../../shared/search/engine/engine-fields.js';
import { readLearnedProperties } from '../../../shared/search/engine/learned-properties.js';

const MAPPING = {
  properties: {
    props: {
      properties: {
        title: { type: 'text', fields: { keyword: { type: 'keyword' } } },
        cloudCover: { type: 'double' },
        pop_est: { type: 'double' },
        NAME: { type: 'keyword', ignore_above: 8191 },
        'eo:cloud_cover': { type: 'double' },
        [encodeFieldName('a.b*c%')]: { type: 'keyword' },
        notes: { type: 'text' },
        nested: { properties: { inner: { type: 'keyword' } } },
      },
    },
    ci: { type: 'object' },
  },
};

describe('engine learned properties (from the mapping)', () => {
  it('decodes every field name encodeFieldName writes', () => {
    for (const name of ['', 'plain', 'a.b', '*', '%', '%2E', 'x%25.y*z', 'eo:bands']) {
      expect(decodeFieldName(encodeFieldName(name)), name).to.equal(name);
    }
  });

  it('lists the own properties of props.*, by name, with JSON types and sortability', () => {
    expect(readLearnedProperties(MAPPING, 1000)).to.deep.equal([
      { name: 'NAME', types: ['string'], sortable: true },
      { name: 'a.b*c%', types: ['string'], sortable: true },
      { name: 'notes', types: ['string'], sortable: false },
      { name: 'pop_est', types: ['number'], sortable: true },
    ]);
  });

  it('keeps at most the cap, and nothing from an empty mapping', () => {
    expect(readLearnedProperties(MAPPING, 2).map((property) => property.name)).to.deep.equal([
      'NAME',
      'a.b*c%',
    ]);
    expect(readLearnedProperties(MAPPING, 0)).to.deep.equal([]);
    expect(readLearnedProperties({}, 10)).to.deep.equal([]);
  });
});
