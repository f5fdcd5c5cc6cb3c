/**
 * Records in several languages: the parsers keep every translation (ISO 19139 and ISO 19115-3
 * PT_FreeText with their locales, Dublin Core xml:lang, the language members of OGC API
 * Records and STAC), the index document searches them, localiseRecord shows a record in one
 * of its languages, and the ISO 19139 writer writes the translations back (schema-valid).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import { parseXmlRecord } from '../../shared/records/formats/xml/index.js';
import { buildIndexDocument } from '../../shared/records/index-document.js';
import {
  localiseRecord,
  recordLanguages,
  toIso639_2,
  toLanguageTag,
} from '../../shared/records/languages.js';
import { writeIso19139 } from '../../shared/records/writers/xml/iso19139.js';
import { samplePath } from '../support/fixtures.js';
import { requireXmllint, validate } from './formats-xml/xmllint.js';

const CZECH = 'CZ-CUZK-ATOM-DATA50.xml';
const FRENCH = 'OCEANO_MODELE_HYDRODYN.xml';
const sample = (name: string): string => readFileSync(samplePath('iso19139', name), 'utf8');

/** An ISO 19115-3 record in French with English text, shaped as Sextant (Ifremer) writes them. */
const ISO_19115_3 = `<?xml version="1.0" encoding="UTF-8"?>
<mdb:MD_Metadata xmlns:mdb="http://standards.iso.org/iso/19115/-3/mdb/2.0"
  xmlns:cit="http://standards.iso.org/iso/19115/-3/cit/2.0"
  xmlns:lan="http://standards.iso.org/iso/19115/-3/lan/1.0"
  xmlns:mcc="http://standards.iso.org/iso/19115/-3/mcc/1.0"
  xmlns:mri="http://standards.iso.org/iso/19115/-3/mri/1.0"
  xmlns:gco="http://standards.iso.org/iso/19115/-3/gco/1.0"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <mdb:metadataIdentifier><mcc:MD_Identifier><mcc:code><gco:CharacterString>habitats-19115-3</gco:CharacterString></mcc:code></mcc:MD_Identifier></mdb:metadataIdentifier>
  <mdb:defaultLocale><lan:PT_Locale id="FR"><lan:language><lan:LanguageCode codeList="http://www.loc.gov/standards/iso639-2/" codeListValue="fre"/></lan:language><lan:characterEncoding><lan:MD_CharacterSetCode codeList="x" codeListValue="utf8"/></lan:characterEncoding></lan:PT_Locale></mdb:defaultLocale>
  <mdb:otherLocale><lan:PT_Locale id="EN"><lan:language><lan:LanguageCode codeList="http://www.loc.gov/standards/iso639-2/" codeListValue="eng"/></lan:language><lan:characterEncoding><lan:MD_CharacterSetCode codeList="x" codeListValue="utf8"/></lan:characterEncoding></lan:PT_Locale></mdb:otherLocale>
  <mdb:identificationInfo><mri:MD_DataIdentification>
    <mri:citation><cit:CI_Citation><cit:title xsi:type="lan:PT_FreeText_PropertyType">
      <gco:CharacterString>Carte d'habitats physiques des fonds marins</gco:CharacterString>
      <lan:PT_FreeText>
        <lan:textGroup><lan:LocalisedCharacterString locale="#FR">Carte d'habitats physiques des fonds marins</lan:LocalisedCharacterString></lan:textGroup>
        <lan:textGroup><lan:LocalisedCharacterString locale="#EN">Map of physical habitats of seabeds</lan:LocalisedCharacterString></lan:textGroup>
      </lan:PT_FreeText>
    </cit:title></cit:CI_Citation></mri:citation>
    <mri:abstract xsi:type="lan:PT_FreeText_PropertyType">
      <gco:CharacterString>Habitats physiques dans la typologie Eunis.</gco:CharacterString>
      <lan:PT_FreeText><lan:textGroup><lan:LocalisedCharacterString locale="#EN">Eunis-classified physical habitats.</lan:LocalisedCharacterString></lan:textGroup></lan:PT_FreeText>
    </mri:abstract>
    <mri:descriptiveKeywords><mri:MD_Keywords>
      <mri:keyword xsi:type="lan:PT_FreeText_PropertyType"><gco:CharacterString>fonds marins</gco:CharacterString>
        <lan:PT_FreeText><lan:textGroup><lan:LocalisedCharacterString locale="#EN">seabed</lan:LocalisedCharacterString></lan:textGroup></lan:PT_FreeText>
      </mri:keyword>
    </mri:MD_Keywords></mri:descriptiveKeywords>
  </mri:MD_DataIdentification></mdb:identificationInfo>
</mdb:MD_Metadata>`;

const DUBLIN_CORE = `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/">
  <dc:identifier>dc-multilingual</dc:identifier>
  <dc:title xml:lang="de">Gewässernetz der Schweiz</dc:title>
  <dc:title xml:lang="fr">Réseau hydrographique de la Suisse</dc:title>
  <dc:title xml:lang="it">Rete idrografica della Svizzera</dc:title>
  <dct:abstract xml:lang="de">Flüsse und Seen.</dct:abstract>
  <dct:abstract xml:lang="fr">Rivières et lacs.</dct:abstract>
  <dc:subject xml:lang="de">Gewässer</dc:subject>
</csw:Record>`;

describe('multilingual records', () => {
  describe('language tags', () => {
    it('makes the codes of every format one BCP 47 tag', () => {
      expect(toLanguageTag('cze')).to.equal('cs');
      expect(toLanguageTag('ces')).to.equal('cs');
      expect(toLanguageTag('fre')).to.equal('fr');
      expect(toLanguageTag('ger')).to.equal('de');
      expect(toLanguageTag('eng; CAN')).to.equal('en');
      expect(toLanguageTag('en_gb')).to.equal('en-GB');
      expect(toLanguageTag('FR')).to.equal('fr');
      expect(toLanguageTag('zh-Hant-TW')).to.equal('zh-hant-TW');
      expect(toLanguageTag('')).to.equal(undefined);
      expect(toLanguageTag('12')).to.equal(undefined);
      expect(toLanguageTag('<script>')).to.equal(undefined);
      expect(toIso639_2('fr')).to.equal('fre');
      expect(toIso639_2('cs-CZ')).to.equal('cze');
      expect(toIso639_2('xx')).to.equal('xx');
    });
  });

  describe('ISO 19139 (national catalogue samples)', () => {
    it('reads the Czech record in Czech with its English and French translations', () => {
      const record = parseXmlRecord(sample(CZECH));
      expect(record.language).to.equal('cze');
      expect(record.languages).to.deep.equal(['cs', 'en', 'fr']);
      expect(record.title).to.equal('Stahovací služba ATOM pro Data50');
      expect(record.translations?.en?.title).to.equal('ATOM Download Service for the Data50');
      expect(record.translations?.fr?.title).to.equal('Service de téléchargement ATOM pour Data50');
      expect(record.translations?.en?.description).to.match(/^The ATOM download service/);
      expect(record.translations?.en?.keywords?.Vodopis).to.equal('Hydrography');
      expect(record.translations).to.not.have.property('cs');
    });

    it('reads the French record with its English translation (locale ids in capitals)', () => {
      const record = parseXmlRecord(sample(FRENCH));
      expect(record.languages).to.deep.equal(['fr', 'en']);
      expect(record.translations?.en?.title).to.equal(
        '3D hydrodynamic model for the evolution of the ocean',
      );
      expect(record.translations?.en?.keywords?.['océanographie']).to.equal('oceanography');
    });

    it('searches the translations: every translated word is in the free text', () => {
      const document = buildIndexDocument(parseXmlRecord(sample(CZECH)));
      expect(document.anytext).to.include('Service de téléchargement ATOM pour Data50');
      expect(document.anytext).to.include('Hydrography');
      expect(document.properties.languages).to.deep.equal(['cs', 'en', 'fr']);
    });

    it('shows a record in one of its languages, and in its own for any other', () => {
      const record = parseXmlRecord(sample(CZECH));
      const english = localiseRecord(record, 'en');
      expect(english.title).to.equal('ATOM Download Service for the Data50');
      expect(english.language).to.equal('en');
      expect(english.keywords).to.include('Hydrography');
      expect(english.keywords).to.not.include('Vodopis');
      expect(english.translations).to.deep.equal(record.translations);
      expect(localiseRecord(record, 'de')).to.equal(record);
      expect(localiseRecord(record, 'cs')).to.equal(record);
      expect(recordLanguages(record)).to.deep.equal(['cs', 'en', 'fr']);
    });
  });

  describe('ISO 19115-3', () => {
    it('reads lan:PT_Locale and lan:PT_FreeText', () => {
      const record = parseXmlRecord(ISO_19115_3);
      expect(record.source.format).to.equal('iso19115-3');
      expect(record.language).to.equal('fre');
      expect(record.languages).to.deep.equal(['fr', 'en']);
      expect(record.translations).to.deep.equal({
        en: {
          title: 'Map of physical habitats of seabeds',
          description: 'Eunis-classified physical habitats.',
          keywords: { 'fonds marins': 'seabed' },
        },
      });
    });
  });

  describe('Dublin Core xml:lang', () => {
    it('keeps the first title as the record’s own and the others as translations', () => {
      const record = parseXmlRecord(DUBLIN_CORE);
      expect(record.title).to.equal('Gewässernetz der Schweiz');
      expect(record.language).to.equal('de');
      expect(record.languages).to.deep.equal(['de', 'fr', 'it']);
      expect(record.translations).to.deep.equal({
        fr: { title: 'Réseau hydrographique de la Suisse', description: 'Rivières et lacs.' },
        it: { title: 'Rete idrografica della Svizzera' },
      });
    });
  });

  describe('OGC API Records and STAC language members', () => {
    it('reads language and languages of an OGC API record', () => {
      const [record] = parseDocuments(
        JSON.stringify({
          id: 'ogc-languages',
          type: 'Feature',
          conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
          time: null,
          geometry: null,
          properties: {
            type: 'dataset',
            title: 'Lakes',
            language: { code: 'en', name: 'English' },
            languages: [{ code: 'en' }, { code: 'fr-CA', name: 'Français (Canada)' }],
          },
          links: [],
        }),
      ).records;
      expect(record?.language).to.equal('en');
      expect(record?.languages).to.deep.equal(['en', 'fr-CA']);
    });

    it('reads the STAC Language extension of an item', () => {
      const [record] = parseDocuments(
        JSON.stringify({
          type: 'Feature',
          stac_version: '1.0.0',
          stac_extensions: ['https://stac-extensions.github.io/language/v1.1.0/schema.json'],
          id: 'stac-languages',
          geometry: null,
          properties: {
            datetime: '2020-01-01T00:00:00Z',
            title: 'Seen',
            language: { code: 'de' },
            languages: [{ code: 'de' }, { code: 'rm' }],
          },
          links: [],
          assets: {},
        }),
      ).records;
      expect(record?.language).to.equal('de');
      expect(record?.languages).to.deep.equal(['de', 'rm']);
    });
  });

  describe('ISO 19139 write-back', () => {
    it('writes gmd:locale and PT_FreeText that read back to the same translations', () => {
      for (const name of [CZECH, FRENCH]) {
        const record = parseXmlRecord(sample(name));
        const xml = writeIso19139(record, { useSource: false });
        expect(xml).to.include('<gmd:PT_FreeText>');
        expect(xml).to.include('xsi:type="gmd:PT_FreeText_PropertyType"');
        const again = parseXmlRecord(xml);
        expect(again.languages, name).to.deep.equal(record.languages);
        expect(again.translations, name).to.deep.equal(record.translations);
      }
    });

    it('writes the translations of a record read from ISO 19115-3 and Dublin Core', () => {
      for (const source of [ISO_19115_3, DUBLIN_CORE]) {
        const record = parseXmlRecord(source);
        const again = parseXmlRecord(writeIso19139(record));
        expect(again.translations).to.deep.equal(record.translations);
        expect(again.languages).to.deep.equal(record.languages);
      }
    });

    it('validates against the ISO 19139 schemas', function () {
      requireXmllint();
      const documents = [
        ...[CZECH, FRENCH].map((name) => ({
          name,
          xml: writeIso19139(parseXmlRecord(sample(name)), { useSource: false }),
        })),
        { name: 'iso19115-3', xml: writeIso19139(parseXmlRecord(ISO_19115_3)) },
        { name: 'dublin-core', xml: writeIso19139(parseXmlRecord(DUBLIN_CORE)) },
      ];
      const failures = validate('iso19139', documents).filter((result) => !result.valid);
      expect(failures, JSON.stringify(failures, null, 2)).to.deep.equal([]);
    });
  });
});
