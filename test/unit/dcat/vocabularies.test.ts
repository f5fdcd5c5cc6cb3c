/**
 * The EU controlled vocabularies of the DCAT-AP mapping: a concept is chosen only where the
 * record's value names one unambiguously, and nothing otherwise.
 */
import { expect } from 'chai';
import {
  baseMediaType,
  euFileType,
  euLanguage,
  euLicence,
} from '../../../shared/records/writers/dcat/vocabularies.js';

const AUTHORITY = 'http://publications.europa.eu/resource/authority/';

describe('EU vocabularies of the DCAT-AP mapping', () => {
  it('reads ISO 639-1, 639-2/B and 639-2/T codes and BCP 47 tags of EU and EEA languages', () => {
    expect(euLanguage('eng')).to.deep.equal({ authority: `${AUTHORITY}language/ENG`, tag: 'en' });
    expect(euLanguage('fre')?.authority).to.equal(`${AUTHORITY}language/FRA`);
    expect(euLanguage('fra')?.authority).to.equal(`${AUTHORITY}language/FRA`);
    expect(euLanguage('en-CA')?.tag).to.equal('en');
    expect(euLanguage('GER')?.authority).to.equal(`${AUTHORITY}language/DEU`);
    expect(euLanguage('jpn')).to.equal(undefined);
    expect(euLanguage('')).to.equal(undefined);
    expect(euLanguage(undefined)).to.equal(undefined);
  });

  it('maps SPDX identifiers and Creative Commons deeds of the table, and nothing else', () => {
    expect(euLicence('CC-BY-4.0')).to.equal(`${AUTHORITY}licence/CC_BY_4_0`);
    expect(euLicence('cc0-1.0')).to.equal(`${AUTHORITY}licence/CC0`);
    expect(euLicence('https://creativecommons.org/licenses/by/4.0/')).to.equal(
      `${AUTHORITY}licence/CC_BY_4_0`,
    );
    expect(euLicence('https://creativecommons.org/licenses/by-sa/4.0/legalcode')).to.equal(
      `${AUTHORITY}licence/CC_BYSA_4_0`,
    );
    for (const other of [
      'CC-BY-3.0',
      'proprietary',
      'no conditions apply',
      'https://example.org/l',
    ]) {
      expect(euLicence(other), other).to.equal(undefined);
    }
  });

  it('maps media types (GeoTIFF by its parameters) and format names to EU file types', () => {
    expect(baseMediaType('image/tiff; application=geotiff; profile=cloud-optimized')).to.equal(
      'image/tiff',
    );
    expect(baseMediaType('OGC:WMS')).to.equal(undefined);
    expect(euFileType('image/tiff; application=geotiff')).to.equal(`${AUTHORITY}file-type/GEOTIFF`);
    expect(euFileType('image/tiff')).to.equal(`${AUTHORITY}file-type/TIFF`);
    expect(euFileType('image/jp2')).to.equal(`${AUTHORITY}file-type/JPEG2000`);
    expect(euFileType(undefined, 'ESRI Shapefile (.shp)')).to.equal(`${AUTHORITY}file-type/SHP`);
    expect(euFileType('application/x-parquet')).to.equal(undefined);
    expect(euFileType(undefined, 'ESRI File Geodatabase (.fgdb)')).to.equal(undefined);
  });
});
