import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../shared/config/index.js';
import {
  buildDisplayValue,
  buildExtentView,
  buildFootprint,
  buildInstantView,
  buildMapGeometry,
  buildMapView,
  buildRecordView,
  describeTime,
  humanizePropertyName,
} from '../../../services/api/html/views.js';
import { defined } from '../../support/defined.js';

describe('HTML views: labels, dates and map footprints', () => {
  it('turns property names into readable labels', () => {
    expect(humanizePropertyName('metadataStandardName')).to.equal('Metadata standard name');
    expect(humanizePropertyName('useLimitation')).to.equal('Use limitation');
    expect(humanizePropertyName('lineage')).to.equal('Lineage');
    expect(humanizePropertyName('eo:cloud_cover')).to.equal('Cloud cover (eo)');
    expect(humanizePropertyName('processing:level')).to.equal('Level (processing)');
    expect(humanizePropertyName('licenseURL')).to.equal('License URL');
    expect(humanizePropertyName('HTMLPageURL')).to.equal('HTML page URL');
    expect(humanizePropertyName('orbitNumber2')).to.equal('Orbit number2');
    expect(humanizePropertyName('___')).to.equal('___');
  });

  it('labels the properties of a record page, keeping the fixed labels', () => {
    const view = buildRecordView({
      id: 'r1',
      geometry: null,
      properties: { metadataStandardVersion: '2003', updated: '2009-10-09T00:00:00.000Z' },
    });
    expect(view.properties.map((p) => p.label)).to.deep.equal([
      'Metadata standard version',
      'Record updated',
    ]);
  });

  it('shows a date, a midnight timestamp and a timestamp with a time one way', () => {
    expect(buildInstantView('2009-10-09')).to.deep.equal({
      datetime: '2009-10-09',
      text: '2009-10-09',
    });
    expect(buildInstantView('2009-10-09T00:00:00.000Z')).to.deep.equal({
      datetime: '2009-10-09',
      text: '2009-10-09',
    });
    expect(buildInstantView('2014-03-17T23:56:00.000Z')).to.deep.equal({
      datetime: '2014-03-17T23:56:00.000Z',
      text: '2014-03-17 23:56 UTC',
    });
    expect(buildInstantView('2020-09-02T09:05:59.024Z')).to.deep.equal({
      datetime: '2020-09-02T09:05:59.024Z',
      text: '2020-09-02 09:05:59 UTC',
    });
    // An offset is converted to UTC; a midnight with milliseconds is not a bare date.
    expect(buildInstantView('2014-03-18T01:56:00+02:00').text).to.equal('2014-03-17 23:56 UTC');
    expect(buildInstantView('2014-03-17T00:00:00.500Z').text).to.equal('2014-03-17 00:00:00 UTC');
    // The last millisecond of a day is how Cairn stores the end of a date.
    expect(buildInstantView('2025-12-25T23:59:59.999Z')).to.deep.equal({
      datetime: '2025-12-25',
      text: '2025-12-25',
    });
    // Not a timestamp: kept as text, without a datetime.
    expect(buildInstantView('spring 2010')).to.deep.equal({ text: 'spring 2010' });
    expect(buildInstantView('2014-03-17T23:56:00')).to.deep.equal({ text: '2014-03-17T23:56:00' });
  });

  it('describes record times and date-valued properties with the same instants', () => {
    expect(describeTime({ date: '2009-10-09' })).to.deep.equal([
      { datetime: '2009-10-09', text: '2009-10-09' },
    ]);
    expect(
      describeTime({ interval: ['2010-05-07T00:00:00.000Z', '2014-03-17T23:56:00.000Z'] }),
    ).to.deep.equal([
      { datetime: '2010-05-07', text: '2010-05-07' },
      { datetime: '2014-03-17T23:56:00.000Z', text: '2014-03-17 23:56 UTC' },
    ]);
    expect(describeTime({ interval: ['2018-01-01', '..'] })).to.deep.equal([
      { datetime: '2018-01-01', text: '2018-01-01' },
      { text: 'open end' },
    ]);
    expect(describeTime(null)).to.equal(undefined);
    expect(buildDisplayValue('2024-01-16T12:00:00.000Z')).to.deep.equal({
      kind: 'time',
      instant: { datetime: '2024-01-16T12:00:00.000Z', text: '2024-01-16 12:00 UTC' },
    });
    expect(buildDisplayValue('ISO 19115-2:2009(E)')).to.deep.equal({
      kind: 'text',
      text: 'ISO 19115-2:2009(E)',
    });
  });

  it("shows a collection's extent rounded and as dates", () => {
    expect(
      buildExtentView({
        spatial: { bbox: [[-180, -73.3622055053711, 180, 67.56610107421875]] },
        temporal: { interval: [['1993-08-02T00:00:00.000Z', '2025-12-25T23:59:59.999Z']] },
      }),
    ).to.deep.equal({
      bbox: '-180, -73.3622, 180, 67.5661',
      interval: [
        { datetime: '1993-08-02', text: '1993-08-02' },
        { datetime: '2025-12-25', text: '2025-12-25' },
      ],
    });
    expect(buildExtentView({ temporal: { interval: [[null, null]] } })).to.deep.equal({
      bbox: undefined,
      interval: [{ text: 'open start' }, { text: 'open end' }],
    });
    expect(buildExtentView(undefined)).to.deep.equal({ bbox: undefined, interval: undefined });
  });

  it('moves a footprint across the antimeridian east of 180° in one piece', () => {
    const split = buildFootprint({ bbox: [171.2, 50.3, -171, 53] });
    expect(split).to.have.property('type', 'MultiPolygon');
    const moved = buildMapGeometry(split) as { type: string; coordinates: number[][][][] };
    const longitudes = moved.coordinates.flat(2).map(([lon]) => defined(lon, 'a longitude'));
    expect(Math.min(...longitudes)).to.equal(171.2);
    expect(Math.max(...longitudes)).to.equal(189);
    // The two parts now touch at 180°.
    expect(moved.coordinates[0]?.[0]?.map(([lon]) => lon)).to.include(180);
    expect(moved.coordinates[1]?.[0]?.map(([lon]) => lon)).to.include(180);
    // A split box inside a GeometryCollection, with a point west of 180° beside it.
    const collection = buildMapGeometry({
      type: 'GeometryCollection',
      geometries: [split, { type: 'Point', coordinates: [-172, 51] }],
    }) as { geometries: { coordinates: unknown }[] };
    expect(collection.geometries[1]?.coordinates).to.deep.equal([188, 51]);
  });

  it('leaves footprints that do not cross the antimeridian as they are', () => {
    const alps = buildFootprint({ bbox: [5.5, 44, 16.5, 48.5] });
    expect(buildMapGeometry(alps)).to.equal(alps);
    // Wide but not across 180°: the Atlantic, and the whole world.
    const atlantic = buildFootprint({ bbox: [-100, -60, 100, 60] });
    expect(buildMapGeometry(atlantic)).to.equal(atlantic);
    const world = buildFootprint({ bbox: [-180, -90, 180, 90] });
    expect(buildMapGeometry(world)).to.equal(world);
    // Points on both sides of 180° are not one shape: nothing says they belong together.
    const points = {
      type: 'MultiPoint',
      coordinates: [
        [179, 0],
        [-179, 0],
      ],
    };
    expect(buildMapGeometry(points)).to.equal(points);
    // Malformed coordinates are left for the map to skip, never thrown on.
    const broken = { type: 'MultiPolygon', coordinates: [[null], [[['a', 1]]], 7] };
    expect(buildMapGeometry(broken)).to.equal(broken);
    expect(buildMapGeometry(null)).to.equal(null);
  });

  it('gives the map the offline outline, or the configured tiles instead', () => {
    expect(buildMapView('/s', undefined)).to.deep.equal({ basemapUrl: '/s/world-110m.json' });
    expect(buildMapView('/s', {})).to.deep.equal({ basemapUrl: '/s/world-110m.json' });
    expect(buildMapView('/s', { tileUrl: 'https://t.example.org/{z}/{x}/{y}.png' })).to.deep.equal({
      tileUrl: 'https://t.example.org/{z}/{x}/{y}.png',
      tileAttribution: '',
    });
  });
});

describe('configuration: MAP_TILE_URL', () => {
  it('is unset by default and takes an http(s) template with {z}, {x} and {y}', () => {
    expect(loadConfig({}).map).to.deep.equal({ tileUrl: undefined, tileAttribution: undefined });
    const config = loadConfig({
      MAP_TILE_URL: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png',
      MAP_TILE_ATTRIBUTION: '© Example',
    });
    expect(config.map).to.deep.equal({
      tileUrl: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png',
      tileAttribution: '© Example',
    });
    expect(Object.isFrozen(config.map)).to.equal(true);
  });

  it('refuses a template without the tile coordinates or not over http(s)', () => {
    expect(() => loadConfig({ MAP_TILE_URL: 'https://tiles.example.org/{z}/{x}.png' })).to.throw(
      ConfigError,
      /MAP_TILE_URL: a tile URL template with \{z\}, \{x\} and \{y\}/,
    );
    expect(() => loadConfig({ MAP_TILE_URL: 'javascript:alert(1)//{z}{x}{y}' })).to.throw(
      ConfigError,
      /MAP_TILE_URL: an http\(s\) URL template/,
    );
  });
});
