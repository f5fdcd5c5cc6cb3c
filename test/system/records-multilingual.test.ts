/**
 * Multilingual records over HTTP on every backend: two national-catalogue ISO 19139 records
 * (Czech with English and French, French with English) and a Dublin Core record with xml:lang
 * titles are found by a word of any of their translations, served in the language `lang` or
 * Accept-Language asks for (Records JSON and HTML, STAC), with Content-Language and hreflang
 * alternates, and written back whole (the stored ISO source, the CSW ISO output). A Dublin Core
 * series in three languages is a STAC Collection negotiated the same way, alone and in the list.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { samplePath } from '../support/fixtures.js';
import { systemBackend } from '../support/system-backend.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ITEMS = '/catalogue/collections/metadata:main/items';
const CZECH = 'CZ-CUZK-ATOM-DATA50';
const FRENCH = 'OCEANO_MODELE_HYDRODYN.xml';
const SWISS = 'dc-multilingual-rivers';
const LAKES = 'dc-multilingual-lakes';
const STAC_LANGUAGE = 'https://stac-extensions.github.io/language/v1.0.0/schema.json';

const DUBLIN_CORE = `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/">
  <dc:identifier>${SWISS}</dc:identifier>
  <dc:type>dataset</dc:type>
  <dc:title xml:lang="de">Gewässernetz der Schweiz</dc:title>
  <dc:title xml:lang="fr">Réseau hydrographique de la Suisse</dc:title>
  <dc:title xml:lang="it">Rete idrografica della Svizzera</dc:title>
  <dct:abstract xml:lang="de">Flüsse und Seen.</dct:abstract>
</csw:Record>`;

const SERIES = `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/">
  <dc:identifier>${LAKES}</dc:identifier>
  <dc:type>series</dc:type>
  <dc:language>de</dc:language>
  <dc:title xml:lang="de">Seen der Schweiz</dc:title>
  <dc:title xml:lang="fr">Lacs de la Suisse</dc:title>
  <dc:title xml:lang="it">Laghi della Svizzera</dc:title>
</csw:Record>`;

interface Link {
  rel: string;
  href: string;
  type?: string;
  hreflang?: string;
}

describe(`multilingual records over HTTP on ${systemBackend().label}`, () => {
  let test: TestApp;

  before(async () => {
    test = await createTestApp(0);
    const summary = await ingestDocuments(test.backend, [
      ...['CZ-CUZK-ATOM-DATA50.xml', 'OCEANO_MODELE_HYDRODYN.xml'].map((name) => ({
        name,
        content: readFileSync(samplePath('iso19139', name), 'utf8'),
      })),
      { name: 'swiss.xml', content: DUBLIN_CORE },
      { name: 'lakes.xml', content: SERIES },
    ]);
    expect(summary.rejected).to.deep.equal([]);
  });
  after(async () => {
    await test?.close();
  });

  const ids = (body: { features: { id: string }[] }): string[] =>
    body.features.map((feature) => feature.id).sort();
  const search = async (q: string): Promise<string[]> => {
    const response = await request(test.app).get(ITEMS).query({ q, f: 'json' }).expect(200);
    return ids(response.body as { features: { id: string }[] });
  };

  describe('free text finds a record by a word of any of its languages', () => {
    it('in the record’s own language and in each translation', async () => {
      expect(await search('Stahovací')).to.deep.equal([CZECH]);
      expect(await search('téléchargement')).to.deep.equal([CZECH]);
      expect(await search('Hydrography')).to.deep.equal([CZECH]);
      expect(await search('hydrodynamic')).to.deep.equal([FRENCH]);
      expect(await search('oceanography')).to.deep.equal([FRENCH]);
      expect(await search('idrografica')).to.deep.equal([SWISS]);
      // The Swiss title's word, and the Czech record's French "Hydrographie" (one French stem).
      expect(await search('hydrographique')).to.deep.equal([CZECH, SWISS]);
      expect(await search('Vorlagezzz')).to.deep.equal([]);
    });

    it('by another form of a word, stemmed in the language of the text that has it', async () => {
      // None of these forms is in any record: each finds the record whose text in that language
      // has a word of the same Snowball stem (shared/records/stems.ts).
      expect(await search('hydrodynamics')).to.deep.equal([FRENCH]); // English "hydrodynamic"
      expect(await search('téléchargements')).to.deep.equal([CZECH]); // French "téléchargement"
      expect(await search('idrografiche')).to.deep.equal([SWISS]); // Italian "idrografica"
      expect(await search('téléchargements ATOM')).to.deep.equal([CZECH]);
      // A stem counts only in its own language: the English stem of "téléchargements" is no
      // English word of a record, and the Czech text (a language Cairn does not stem) is
      // matched word for word.
      expect(await search('Stahovacích')).to.deep.equal([]);
    });

    it('through CSW csw:AnyText as well', async () => {
      const response = await request(test.app)
        .get('/catalogue/csw')
        .query({
          service: 'CSW',
          version: '2.0.2',
          request: 'GetRecords',
          typeNames: 'csw:Record',
          resultType: 'results',
          constraintLanguage: 'CQL_TEXT',
          constraint: "csw:AnyText LIKE '%oceanography%'",
        })
        .expect(200);
      expect(response.text).to.include('numberOfRecordsMatched="1"');
      expect(response.text).to.include(FRENCH);
    });
  });

  describe('OGC API Records: one record', () => {
    const item = (id: string) => `${ITEMS}/${encodeURIComponent(id)}`;

    it('is in its own language by default, listing its languages', async () => {
      const response = await request(test.app).get(item(CZECH)).query({ f: 'json' }).expect(200);
      expect(response.headers['content-language']).to.equal('cs');
      expect(response.headers.vary).to.match(/Accept-Language/i);
      expect(response.body.properties.title).to.equal('Stahovací služba ATOM pro Data50');
      // OGC API Records: `language` is the language shown, `languages` the other ones.
      expect(response.body.properties.language).to.deep.equal({ code: 'cs' });
      expect(response.body.properties.languages).to.deep.equal([{ code: 'en' }, { code: 'fr' }]);
      const alternates = (response.body.links as Link[]).filter((link) => link.hreflang);
      expect(alternates.map((link) => link.hreflang)).to.deep.equal(['en', 'fr']);
      for (const link of alternates) {
        expect(link.rel).to.equal('alternate');
        expect(new URL(link.href).searchParams.get('lang')).to.equal(link.hreflang);
      }
    });

    it('is in the language lang names, with links to the others', async () => {
      const response = await request(test.app)
        .get(item(CZECH))
        .query({ f: 'json', lang: 'en' })
        .expect(200);
      expect(response.headers['content-language']).to.equal('en');
      expect(response.body.properties.title).to.equal('ATOM Download Service for the Data50');
      expect(response.body.properties.language).to.deep.equal({ code: 'en' });
      expect(response.body.properties.languages).to.deep.equal([{ code: 'cs' }, { code: 'fr' }]);
      expect(response.body.properties.keywords).to.include('Hydrography');
      const hreflangs = (response.body.links as Link[]).flatMap((link) =>
        link.hreflang ? [link.hreflang] : [],
      );
      expect(hreflangs).to.deep.equal(['cs', 'fr']);
      const french = await request(test.app)
        .get(item(CZECH))
        .query({ f: 'json', lang: 'fre' })
        .expect(200);
      expect(french.body.properties.title).to.equal('Service de téléchargement ATOM pour Data50');
    });

    it('is in the language Accept-Language prefers (RFC 4647 lookup); lang wins', async () => {
      const french = await request(test.app)
        .get(item(CZECH))
        .query({ f: 'json' })
        .set('Accept-Language', 'de-CH, fr-CH;q=0.9, en;q=0.5')
        .expect(200);
      expect(french.headers['content-language']).to.equal('fr');
      expect(french.body.properties.title).to.equal('Service de téléchargement ATOM pour Data50');
      const english = await request(test.app)
        .get(item(CZECH))
        .query({ f: 'json', lang: 'en' })
        .set('Accept-Language', 'fr')
        .expect(200);
      expect(english.headers['content-language']).to.equal('en');
    });

    it('falls back to its own language for an unknown lang, and Content-Language says so', async () => {
      const response = await request(test.app)
        .get(item(FRENCH))
        .query({ f: 'json', lang: 'ja' })
        .expect(200);
      expect(response.headers['content-language']).to.equal('fr');
      expect(response.body.properties.title).to.equal(
        "Modèle hydrodynamique 3D d'évolution de l'océan",
      );
    });

    it('ignores a malformed Accept-Language (never a 500)', async () => {
      for (const header of ['en;q=abc', ';;;,,', 'x'.repeat(5000), 'fr_FR, *;q=2']) {
        const response = await request(test.app)
          .get(item(FRENCH))
          .query({ f: 'json' })
          .set('Accept-Language', header)
          .expect(200);
        expect(response.headers['content-language'], header).to.equal('fr');
      }
    });

    it('refuses a lang that is no language tag in the Records error format', async () => {
      const response = await request(test.app)
        .get(item(FRENCH))
        .query({ f: 'json', lang: 'fr;drop' })
        .expect(400);
      expect(response.body.code).to.be.a('string');
    });

    it('keeps every language in the XML source it serves', async () => {
      const response = await request(test.app)
        .get(item(CZECH))
        .query({ f: 'xml', lang: 'en' })
        .expect(200);
      expect(response.headers['content-language']).to.equal('cs');
      expect(response.text).to.include('Service de téléchargement ATOM pour Data50');
      expect(response.text).to.include('ATOM Download Service for the Data50');
    });

    it('shows the HTML page in the chosen language with links to the others', async () => {
      const response = await request(test.app)
        .get(item(SWISS))
        .query({ f: 'html', lang: 'it' })
        .expect(200);
      expect(response.headers['content-language']).to.equal('it');
      expect(response.text).to.include('<h1>Rete idrografica della Svizzera</h1>');
      expect(response.text).to.include('<article class="record" lang="it">');
      expect(response.text).to.match(/hreflang="de"/);
      expect(response.text).to.match(/hreflang="fr"/);
    });
  });

  describe('pages of records', () => {
    it('show each record in the asked language where it has it', async () => {
      const response = await request(test.app)
        .get(ITEMS)
        .query({ f: 'json', lang: 'en', sortby: 'id' })
        .expect(200);
      const titles = Object.fromEntries(
        (response.body.features as { id: string; properties: { title: string } }[]).map(
          (feature) => [feature.id, feature.properties.title],
        ),
      );
      expect(titles[CZECH]).to.equal('ATOM Download Service for the Data50');
      expect(titles[FRENCH]).to.equal('3D hydrodynamic model for the evolution of the ocean');
      expect(titles[SWISS]).to.equal('Gewässernetz der Schweiz');
      expect(response.headers.vary).to.match(/Accept-Language/i);
    });
  });

  describe('STAC', () => {
    it('serves an item in the negotiated language with hreflang links', async () => {
      const path = `/catalogue/stac/collections/metadata:main/items/${CZECH}`;
      const response = await request(test.app).get(path).query({ lang: 'fr' }).expect(200);
      expect(response.headers['content-language']).to.equal('fr');
      expect(response.body.properties.title).to.equal('Service de téléchargement ATOM pour Data50');
      // The STAC Language extension: the language shown, then the others.
      expect(response.body.stac_extensions).to.include(STAC_LANGUAGE);
      expect(response.body.properties.language).to.deep.equal({
        code: 'fr',
        name: 'français',
        alternate: 'French',
      });
      expect(
        (response.body.properties.languages as { code: string }[]).map((language) => language.code),
      ).to.deep.equal(['cs', 'en']);
      const hreflangs = (response.body.links as Link[]).flatMap((link) =>
        link.hreflang ? [link.hreflang] : [],
      );
      expect(hreflangs).to.deep.equal(['cs', 'en']);
      const byHeader = await request(test.app)
        .get(path)
        .set('Accept-Language', 'en-GB')
        .expect(200);
      expect(byHeader.body.properties.title).to.equal('ATOM Download Service for the Data50');
    });

    it('shows search results in the Accept-Language language', async () => {
      const response = await request(test.app)
        .get('/catalogue/search')
        .query({ ids: FRENCH })
        .set('Accept-Language', 'en')
        .expect(200);
      expect(response.body.features[0].properties.title).to.equal(
        '3D hydrodynamic model for the evolution of the ocean',
      );
    });
  });

  describe('STAC Collections', () => {
    const COLLECTION = `/catalogue/stac/collections/${LAKES}`;

    it('serve a collection in its own language, naming the others (Language extension)', async () => {
      const response = await request(test.app).get(COLLECTION).expect(200);
      expect(response.headers['content-language']).to.equal('de');
      expect(response.headers.vary).to.match(/Accept-Language/i);
      expect(response.body.title).to.equal('Seen der Schweiz');
      expect(response.body.stac_extensions).to.include(STAC_LANGUAGE);
      expect(response.body.language).to.deep.include({ code: 'de', name: 'Deutsch' });
      expect(
        (response.body.languages as { code: string }[]).map((language) => language.code),
      ).to.deep.equal(['fr', 'it']);
      const alternates = (response.body.links as Link[]).filter((link) => link.hreflang);
      expect(alternates.map((link) => link.hreflang)).to.deep.equal(['fr', 'it']);
      for (const link of alternates) {
        expect(link.rel).to.equal('alternate');
        const href = new URL(link.href);
        expect(href.pathname).to.equal(COLLECTION);
        expect(href.searchParams.get('lang')).to.equal(link.hreflang);
      }
    });

    it('serve a collection in the language lang or Accept-Language asks for', async () => {
      const byLang = await request(test.app).get(COLLECTION).query({ lang: 'fr' }).expect(200);
      expect(byLang.headers['content-language']).to.equal('fr');
      expect(byLang.body.title).to.equal('Lacs de la Suisse');
      expect(byLang.body.language).to.deep.include({ code: 'fr' });
      const hreflangs = (byLang.body.links as Link[]).flatMap((link) =>
        link.hreflang ? [link.hreflang] : [],
      );
      expect(hreflangs).to.deep.equal(['de', 'it']);
      const byHeader = await request(test.app)
        .get(COLLECTION)
        .set('Accept-Language', 'it-CH, fr;q=0.5')
        .expect(200);
      expect(byHeader.headers['content-language']).to.equal('it');
      expect(byHeader.body.title).to.equal('Laghi della Svizzera');
      // An unknown language gives the collection's own, and Content-Language says so.
      const unknown = await request(test.app).get(COLLECTION).query({ lang: 'ja' }).expect(200);
      expect(unknown.headers['content-language']).to.equal('de');
      expect(unknown.body.title).to.equal('Seen der Schweiz');
    });

    it('show each collection of the list in the asked language', async () => {
      const titleOf = (body: { collections: { id: string; title?: string }[] }) =>
        body.collections.find((collection) => collection.id === LAKES)?.title;
      const byLang = await request(test.app)
        .get('/catalogue/stac/collections')
        .query({ lang: 'fr' })
        .expect(200);
      expect(titleOf(byLang.body)).to.equal('Lacs de la Suisse');
      expect(byLang.headers.vary).to.match(/Accept-Language/i);
      expect(byLang.headers).to.not.have.property('content-language');
      // The self link keeps the language asked for.
      const self = (byLang.body.links as Link[]).find((link) => link.rel === 'self');
      expect(new URL(self?.href ?? 'x:').searchParams.get('lang')).to.equal('fr');
      const byHeader = await request(test.app)
        .get('/catalogue/stac/collections')
        .set('Accept-Language', 'it')
        .expect(200);
      expect(titleOf(byHeader.body)).to.equal('Laghi della Svizzera');
      const plain = await request(test.app).get('/catalogue/stac/collections').expect(200);
      expect(titleOf(plain.body)).to.equal('Seen der Schweiz');
    });

    it('refuse a lang that is no language tag; the catalogue collection takes lang', async () => {
      await request(test.app).get(COLLECTION).query({ lang: 'no tag!' }).expect(400);
      await request(test.app)
        .get('/catalogue/stac/collections')
        .query({ lang: 'no tag!' })
        .expect(400);
      const main = await request(test.app)
        .get('/catalogue/stac/collections/metadata:main')
        .query({ lang: 'fr' })
        .expect(200);
      expect(main.body.id).to.equal('metadata:main');
      expect(main.headers).to.not.have.property('content-language');
    });
  });

  describe('CSW', () => {
    it('writes the translations back in the ISO output (PT_FreeText)', async () => {
      const response = await request(test.app)
        .get('/catalogue/csw')
        .query({
          service: 'CSW',
          version: '2.0.2',
          request: 'GetRecordById',
          id: SWISS,
          outputSchema: 'http://www.isotc211.org/2005/gmd',
          elementSetName: 'full',
        })
        .expect(200);
      expect(response.text).to.include('<gmd:PT_FreeText>');
      expect(response.text).to.include('locale="#FR"');
      expect(response.text).to.include('Réseau hydrographique de la Suisse');
    });
  });
});
