/**
 * Language negotiation (services/api/common/language.ts): Accept-Language parsing (RFC 9110
 * §12.5.4), RFC 4647 lookup, and the choice between `lang`, the header and the default.
 */
import { expect } from 'chai';
import {
  chooseLanguage,
  langParameter,
  localiseRecords,
  lookupRange,
  MAX_ACCEPT_LANGUAGE_LENGTH,
  negotiateRecordLanguage,
  parseAcceptLanguage,
  withLang,
} from '../../services/api/common/language.js';
import { buildEmptyRecord, type CoreRecord } from '../../shared/records/core-record.js';

function multilingual(): CoreRecord {
  const record = buildEmptyRecord('ml', { format: 'dublin-core', mediaType: 'x', content: '' });
  record.title = 'Gewässernetz';
  record.language = 'ger';
  record.languages = ['de', 'fr', 'it'];
  record.translations = { fr: { title: 'Réseau hydrographique' }, it: { title: 'Rete' } };
  return record;
}

describe('language negotiation', () => {
  describe('parseAcceptLanguage', () => {
    it('orders ranges by weight, keeping the header order for equal weights', () => {
      expect(parseAcceptLanguage('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).to.deep.equal([
        { range: 'fr-CH', quality: 1 },
        { range: 'fr', quality: 0.9 },
        { range: 'en', quality: 0.8 },
        { range: 'de', quality: 0.7 },
        { range: '*', quality: 0.5 },
      ]);
      expect(parseAcceptLanguage('en;q=0.5, it, de;q=0.5')).to.deep.equal([
        { range: 'it', quality: 1 },
        { range: 'en', quality: 0.5 },
        { range: 'de', quality: 0.5 },
      ]);
    });

    it('drops ranges of weight 0 and empty list members', () => {
      expect(parseAcceptLanguage('fr;q=0, , en')).to.deep.equal([{ range: 'en', quality: 1 }]);
      expect(parseAcceptLanguage('')).to.deep.equal([]);
    });

    it('refuses a malformed header as a whole', () => {
      for (const header of [
        'en;q=abc',
        'en;q=1.5',
        'en;q=0.1234',
        'en;level=1',
        'fr_FR',
        'toolonglanguage',
        '12',
        'en-',
        '<script>',
        'x'.repeat(MAX_ACCEPT_LANGUAGE_LENGTH + 1),
      ]) {
        expect(parseAcceptLanguage(header), header).to.equal(undefined);
      }
      expect(parseAcceptLanguage(undefined)).to.equal(undefined);
    });
  });

  describe('lookupRange (RFC 4647 §3.4)', () => {
    const available = ['de', 'fr', 'zh-Hant', 'en-GB'];
    it('cuts subtags from the end until a tag matches, ignoring case', () => {
      expect(lookupRange('fr-CH', available)).to.equal('fr');
      expect(lookupRange('FR', available)).to.equal('fr');
      expect(lookupRange('zh-Hant-CN-x-private1', available)).to.equal('zh-Hant');
      expect(lookupRange('en-gb', available)).to.equal('en-GB');
      expect(lookupRange('en', available)).to.equal(undefined);
      expect(lookupRange('it', available)).to.equal(undefined);
      expect(lookupRange('*', available)).to.equal(undefined);
    });
  });

  describe('chooseLanguage', () => {
    const available = ['de', 'fr', 'it'];
    it('takes lang first, then the header, then the record’s own language', () => {
      expect(chooseLanguage(available, 'fr', 'it')).to.deep.equal({
        language: 'fr',
        fellBack: false,
      });
      expect(chooseLanguage(available, 'fre', undefined).language).to.equal('fr');
      expect(chooseLanguage(available, undefined, 'en;q=1, it;q=0.8').language).to.equal('it');
      expect(chooseLanguage(available, undefined, undefined)).to.deep.equal({
        language: 'de',
        fellBack: false,
      });
      expect(chooseLanguage(available, undefined, '*').language).to.equal('de');
    });

    it('falls back to the default for an unknown lang, saying so', () => {
      expect(chooseLanguage(available, 'ja', 'fr')).to.deep.equal({
        language: 'de',
        fellBack: true,
      });
      expect(chooseLanguage(available, undefined, 'ja, ko')).to.deep.equal({
        language: 'de',
        fellBack: true,
      });
    });

    it('ignores a malformed header', () => {
      expect(chooseLanguage(available, undefined, 'fr;q=x')).to.deep.equal({
        language: 'de',
        fellBack: false,
      });
    });

    it('has no language for a record that names none, unless given a fallback', () => {
      expect(chooseLanguage([], undefined, 'fr').language).to.equal(undefined);
      expect(chooseLanguage([], undefined, 'fr', 'en').language).to.equal('en');
    });
  });

  describe('records', () => {
    it('negotiates one record: the record in the language, and its other languages', () => {
      const negotiated = negotiateRecordLanguage(multilingual(), undefined, 'fr-CH');
      expect(negotiated.language).to.equal('fr');
      expect(negotiated.record.title).to.equal('Réseau hydrographique');
      expect(negotiated.others).to.deep.equal(['de', 'it']);
      const fallback = negotiateRecordLanguage(multilingual(), 'ja', undefined);
      expect(fallback.language).to.equal('de');
      expect(fallback.record.title).to.equal('Gewässernetz');
    });

    it('serves only languages the record has text in, not those it only lists', () => {
      const listed = buildEmptyRecord('listed', {
        format: 'ogc-record',
        mediaType: 'x',
        content: '',
      });
      listed.title = 'Rivers';
      listed.language = 'en';
      listed.languages = ['en', 'fr-CA'];
      const negotiated = negotiateRecordLanguage(listed, 'fr-CA', undefined);
      expect(negotiated.language).to.equal('en');
      expect(negotiated.record.title).to.equal('Rivers');
      expect(negotiated.others).to.deep.equal([]);
    });

    it('localises every record of a page that has the language, leaving the others', () => {
      const plain = buildEmptyRecord('plain', { format: 'geojson', mediaType: 'x', content: '' });
      plain.title = 'Plain';
      const [first, second] = localiseRecords([multilingual(), plain], 'it', undefined);
      expect(first?.title).to.equal('Rete');
      expect(second).to.equal(plain);
      expect(localiseRecords([multilingual()], undefined, undefined)[0]?.title).to.equal(
        'Gewässernetz',
      );
    });

    it('reads lang from a query and puts it in a URL', () => {
      expect(langParameter({ lang: 'fr' })).to.equal('fr');
      expect(langParameter({ lang: ['it', 'fr'] })).to.equal('it');
      expect(langParameter({})).to.equal(undefined);
      expect(withLang('http://x.test/a?f=json&lang=de', 'fr')).to.equal(
        'http://x.test/a?f=json&lang=fr',
      );
    });
  });
});
