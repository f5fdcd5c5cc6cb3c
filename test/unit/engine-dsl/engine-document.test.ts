import { expect } from 'chai';
import { QUERYABLES } from '../../../shared/query/queryables.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import { buildIndexDocument } from '../../../shared/records/index-document.js';
import {
  buildEngineDocument,
  readStoredRecord,
} from '../../../shared/search/engine/engine-document.js';
import {
  encodeFieldName,
  KEYWORD_LIMIT,
  presenceShowsOnField,
  resolveFilterProperty,
} from '../../../shared/search/engine/engine-fields.js';
import {
  buildIngestLogTemplate,
  buildRecordsTemplates,
  MAPPING_VERSION,
  parseIndexVersion,
  readDeclaredPropertyTypes,
  readMappingFile,
  versionedIndexName,
} from '../../../shared/search/engine/index-templates.js';
import { defined } from '../../support/defined.js';

function record(feature: Record<string, unknown>): CoreRecord {
  const parsed = parseDocuments(JSON.stringify(feature));
  expect(parsed.failures).to.deep.equal([]);
  return defined(parsed.records[0], 'the record');
}

const CROSSING = record({
  type: 'Feature',
  id: 'x1',
  conformsTo: [],
  // Crossing the antimeridian as RFC 7946 writes it: two parts, longitudes within ±180 (writes
  // refuse positions outside the ranges the read side accepts).
  geometry: {
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [170, -20],
          [180, -20],
          [180, -10],
          [170, -10],
          [170, -20],
        ],
      ],
      [
        [
          [-180, -20],
          [-170, -20],
          [-170, -10],
          [-180, -10],
          [-180, -20],
        ],
      ],
    ],
  },
  bbox: [170, -20, -170, -10],
  time: { interval: ['2015-01-01T00:00:00Z', '..'] },
  properties: {
    type: 'dataset',
    title: 'Île de Pâques',
    keywords: ['océan', 'ocean'],
    'proj.epsg': 4326,
    tags: [],
    cloudCover: 3,
  },
});

describe('engine document layout', () => {
  it('places every property under props, with dotted names escaped', () => {
    const document = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'envelope');
    const props = document.props as Record<string, unknown>;
    expect(props.title).to.equal('Île de Pâques');
    expect(props['proj%2Eepsg']).to.equal(4326);
    expect(props.cloudCover).to.equal(3);
    expect(props).not.to.have.property('tags');
    expect(props).not.to.have.property('start_datetime');
    // Only the empty arrays: every other property shows on its own field.
    const empty = Object.entries(buildIndexDocument(CROSSING).properties)
      .filter(([, value]) => Array.isArray(value) && value.length === 0)
      .map(([name]) => name);
    expect(empty).to.include('tags');
    expect(document.has).to.have.members(empty);
  });

  it('lists in `has` only the properties whose own field cannot show them', () => {
    const long = 'x'.repeat(KEYWORD_LIMIT + 1);
    // Shown: declared strings, numbers and dates with values of their kind; record times.
    expect(presenceShowsOnField('title', 'a')).to.equal(true);
    expect(presenceShowsOnField('keywords', [long, 'a'])).to.equal(true);
    expect(presenceShowsOnField('license', 'CC0-1.0')).to.equal(true);
    expect(presenceShowsOnField('cloudCover', 3)).to.equal(true);
    expect(presenceShowsOnField('created', '2020-01-01T00:00:00Z')).to.equal(true);
    expect(presenceShowsOnField('start_datetime', '2020-01-01T00:00:00Z')).to.equal(true);
    expect(presenceShowsOnField('proj.epsg', 4326)).to.equal(true);
    // Not shown: empty arrays, over-long keywords, values the mapping would drop as malformed,
    // strings and booleans of properties mapped from whatever value came first, objects.
    expect(presenceShowsOnField('keywords', [])).to.equal(false);
    expect(presenceShowsOnField('title', long)).to.equal(false);
    expect(presenceShowsOnField('cloudCover', 'cloudy')).to.equal(false);
    expect(presenceShowsOnField('tileMatrix', 'WebMercatorQuad')).to.equal(false);
    expect(presenceShowsOnField('sar:polarizations', true)).to.equal(false);
    expect(presenceShowsOnField('proj.bbox', { west: 1 })).to.equal(false);
  });

  it('writes a CASEI copy only for text beyond ASCII, and ACCENTI copies where they differ', () => {
    const document = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'envelope');
    expect((document.ci as Record<string, unknown>).title).to.equal('île de pâques');
    expect((document.ai as Record<string, unknown>).title).to.equal('Ile de Paques');
    expect((document.cai as Record<string, unknown>).title).to.equal('ile de paques');
    expect((document.ai as Record<string, unknown>).keywords).to.deep.equal(['ocean', 'ocean']);
    // Text beyond ASCII gets its CASEI copy even where folding leaves it as it is.
    expect((document.ci as Record<string, unknown>).keywords).to.deep.equal(['océan', 'ocean']);
    expect(document.ci).not.to.have.property('type');
    expect(document.anytext).to.contain('Ile de Paques');
  });

  it('writes a case- and accent-folded sort copy of sortable text, and only of that', () => {
    const document = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'envelope');
    const sort = document.sort as Record<string, unknown>;
    expect(sort.title).to.equal('ile de paques');
    // Sort copies are written for ASCII text too (sorting needs every value), never for the
    // id (code-point order), dates, numbers or properties that cannot be sorted.
    const plain = { ...CROSSING, title: 'Harbour Survey' };
    const ascii = buildEngineDocument(buildIndexDocument(plain), plain, 'envelope');
    expect((ascii.sort as Record<string, unknown>).title).to.equal('harbour survey');
    for (const name of ['id', 'updated', 'keywords', 'cloudCover']) {
      expect(sort, name).not.to.have.property(name);
    }
  });

  it('writes no folded copy of plain-ASCII text, whatever its case', () => {
    const plain = { ...CROSSING, title: 'Harbour Survey', keywords: ['Tides', 'tides'] };
    const ascii = buildEngineDocument(buildIndexDocument(plain), plain, 'envelope');
    // CASEI on plain ASCII is ASCII lower case, which the engines match on the field itself.
    expect(ascii).not.to.have.property('ci');
    expect(ascii).not.to.have.property('ai');
    expect(ascii).not.to.have.property('cai');
    // One item beyond ASCII brings the whole array's copy.
    const mixed = { ...plain, keywords: ['Tides', 'Marée'] };
    const copied = buildEngineDocument(buildIndexDocument(mixed), mixed, 'envelope');
    expect(copied.ci).to.deep.equal({ keywords: ['tides', 'marée'] });
    expect(copied.cai).to.deep.equal({ keywords: ['tides', 'maree'] });
  });

  it('writes no folded copies of properties mapped as dates or numbers', () => {
    const dated = {
      ...CROSSING,
      created: '2003-08-30T00:00:00Z',
      extra: { note: 'Mixed Casé' },
    };
    const document = buildEngineDocument(buildIndexDocument(dated), dated, 'envelope');
    expect((document.props as Record<string, unknown>).created).to.be.a('string');
    // CASEI and ACCENTI refuse dates, so their folded copy could never be queried.
    expect(document.ci).not.to.have.property('created');
    expect((document.ci as Record<string, unknown>).note).to.equal('mixed casé');
  });

  it('writes the time span of date-like string properties, named like core fields or not', () => {
    const dated = {
      ...CROSSING,
      created: '2003-08-30T00:00:00Z',
      extra: { date: '2022-04-16', start: '2022-04-16T10:13:19Z', end: 'soon', n: 3 },
    };
    const document = buildEngineDocument(buildIndexDocument(dated), dated, 'envelope');
    // A date covers its whole day; a timestamp is one instant; other values have no span.
    expect(document.tlo).to.deep.equal({
      date: '2022-04-16T00:00:00.000Z',
      start: '2022-04-16T10:13:19.000Z',
    });
    expect(document.thi).to.deep.equal({
      date: '2022-04-16T23:59:59.999Z',
      start: '2022-04-16T10:13:19.000Z',
    });
  });

  it('indexes free text once, in anytext: the text properties keep only exact keywords', () => {
    const mappings = (readMappingFile('records.base.json').template as Record<string, unknown>)
      .mappings as { properties: Record<string, Record<string, unknown>> };
    const props = defined(mappings.properties.props, 'the props mapping').properties as Record<
      string,
      Record<string, unknown>
    >;
    for (const name of ['title', 'description', 'keywords', 'themes', 'organisations']) {
      expect(props[name], name).to.deep.include({ type: 'text', index: false });
      expect(props[name]?.fields, name).to.have.nested.property('keyword.type', 'keyword');
    }
    expect(mappings.properties.anytext).to.deep.include({ type: 'text' });
    expect(mappings.properties.anytext).not.to.have.property('index');
  });

  it('keeps the box as written, its antimeridian halves and an open-ended date_range', () => {
    const document = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'envelope');
    expect(document.bbox).to.deep.equal({ west: 170, south: -20, east: -170, north: -10 });
    expect(document.box0).to.deep.equal({ minx: 170, miny: -20, maxx: 180, maxy: -10 });
    expect(document.box1).to.deep.equal({ minx: -180, miny: -20, maxx: -170, maxy: -10 });
    expect(document.time).to.deep.equal({
      start: '2015-01-01T00:00:00.000Z',
      range: { gte: '2015-01-01T00:00:00.000Z' },
    });
    expect(document).not.to.have.property('geometry');
  });

  it('adds the geo_shape footprint in shape mode (the bbox when there is no geometry)', () => {
    const shaped = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'shape');
    expect(shaped.geometry).to.deep.equal(CROSSING.geometry);
    const boxOnly = { ...CROSSING, geometry: undefined };
    expect(
      buildEngineDocument(buildIndexDocument(boxOnly), boxOnly, 'shape').geometry,
    ).to.deep.equal({
      type: 'envelope',
      coordinates: [
        [170, -10],
        [-170, -20],
      ],
    });
  });

  it('stores the record and its source verbatim, and gives them back', () => {
    const document = buildEngineDocument(buildIndexDocument(CROSSING), CROSSING, 'envelope');
    expect((document.record as unknown as { source: object }).source).not.to.have.property(
      'content',
    );
    expect(readStoredRecord(document)).to.deep.equal(CROSSING);
  });

  it('resolves filter properties like the SQLite compiler (exact names, then own names)', () => {
    expect(resolveFilterProperty('dc:title').path).to.equal('props.title.keyword');
    expect(resolveFilterProperty('eo:cloudCover').path).to.equal('props.cloudCover');
    expect(resolveFilterProperty('TITLE').path).to.equal('props.TITLE');
    expect(resolveFilterProperty('datetime').path).to.equal('time.start');
    expect(resolveFilterProperty('proj.epsg').path).to.equal('props.proj%2Eepsg');
    expect(encodeFieldName('a*b%c')).to.equal('a%2Ab%25c');
  });
});

describe('index templates from es-mappings', () => {
  it('declares the numeric and date-time queryables with their engine types', () => {
    const declared = readDeclaredPropertyTypes();
    for (const queryable of QUERYABLES) {
      if (queryable.type === 'number' || queryable.type === 'integer') {
        expect(declared.get(queryable.name), queryable.name).to.equal('double');
      }
      if (queryable.type === 'datetime' && !queryable.name.endsWith('_datetime')) {
        expect(declared.get(queryable.name), queryable.name).to.equal('date');
      }
    }
    for (const name of ['title', 'description', 'keywords', 'themes', 'organisations']) {
      expect(declared.get(name), name).to.equal('text');
    }
  });

  it('composes the records template from the components the options select', () => {
    const envelope = buildRecordsTemplates('cairn-records', {
      spatial: 'envelope',
      analysis: 'standard',
    });
    expect(envelope.components.map((component) => component.name)).to.deep.equal([
      'cairn-records-base',
    ]);
    expect(envelope.indexTemplate.body).to.deep.include({
      index_patterns: ['cairn-records-v*'],
      composed_of: ['cairn-records-base'],
    });
    const full = buildRecordsTemplates('cairn-records', { spatial: 'shape', analysis: 'full' });
    expect(full.components.map((component) => component.name)).to.deep.equal([
      'cairn-records-base',
      'cairn-records-shape',
      'cairn-records-analysis-full',
    ]);
    expect(
      (full.indexTemplate.body.template as { mappings: { _meta: unknown } }).mappings._meta,
    ).to.deep.equal({
      cairn: { mappingVersion: MAPPING_VERSION, spatial: 'shape', analysis: 'full' },
    });
  });

  it('sets the refresh interval in the index template itself, over the base component', () => {
    const tuned = buildRecordsTemplates('cairn-records', {
      spatial: 'envelope',
      analysis: 'standard',
      refreshInterval: '30s',
    });
    const template = tuned.indexTemplate.body.template as { settings?: unknown; mappings: unknown };
    expect(template.settings).to.deep.equal({ index: { refresh_interval: '30s' } });
    expect(template.mappings).to.deep.equal({
      _meta: {
        cairn: { mappingVersion: MAPPING_VERSION, spatial: 'envelope', analysis: 'standard' },
      },
    });
  });

  it('sets shards and fixed replicas in the index template when a layout is given', () => {
    const layout = buildRecordsTemplates('cairn-records', {
      spatial: 'envelope',
      analysis: 'standard',
      shards: 4,
      replicas: 1,
    });
    expect((layout.indexTemplate.body.template as { settings?: unknown }).settings).to.deep.equal({
      index: { number_of_shards: 4, number_of_replicas: 1, auto_expand_replicas: false },
    });
  });

  it('leaves the refresh interval to the engine unless one is given, with shards idle after 5 s', () => {
    const plain = buildRecordsTemplates('cairn-records', {
      spatial: 'envelope',
      analysis: 'standard',
    });
    expect(plain.indexTemplate.body.template).not.to.have.property('settings');
    const base = defined(plain.components[0], 'the base component').body as {
      template: { settings: { index: Record<string, unknown> } };
    };
    expect(base.template.settings.index).not.to.have.property('refresh_interval');
    expect(base.template.settings.index.search).to.deep.equal({ idle: { after: '5s' } });
  });

  it('uses no analysis-common feature in the base mapping', () => {
    const text = JSON.stringify(readMappingFile('records.base.json'));
    for (const feature of [
      'asciifolding',
      'stemmer',
      'porter_stem',
      'normalizer',
      'geo_shape',
      '"script"',
    ]) {
      expect(text, feature).not.to.contain(feature);
    }
  });

  it('names versioned indices and the ingest log', () => {
    expect(versionedIndexName('cairn-records', 3)).to.equal('cairn-records-v3');
    expect(parseIndexVersion('cairn-records', 'cairn-records-v12')).to.equal(12);
    expect(parseIndexVersion('cairn-records', 'other-v1')).to.equal(undefined);
    expect(buildIngestLogTemplate('cairn-ingest-log').body.index_patterns).to.deep.equal([
      'cairn-ingest-log',
    ]);
  });
});
