/**
 * The free-text stems (shared/records/stems.ts) and their SQLite form (stem-tokens.ts): which
 * text is stemmed in which language, the query words' stems and their bound, and the FTS5
 * MATCH expression. Their agreement with the engines' own Snowball stemmers is checked in
 * test/integration/stems-lucene.test.ts.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parseDocuments } from '../../shared/records/formats/index.js';
import {
  MAX_STEMMED_QUERY_WORDS,
  STEMMED_LANGUAGES,
  freeTextStems,
  recordStems,
  stemLanguage,
  stemText,
} from '../../shared/records/stems.js';
import { buildFtsMatch } from '../../shared/search/sqlite/compile-query.js';
import { ftsText, stemToken } from '../../shared/search/sqlite/stem-tokens.js';
import { samplePath } from '../support/fixtures.js';

const record = (name: string) => {
  const [parsed] = parseDocuments(readFileSync(samplePath('iso19139', name), 'utf8')).records;
  if (parsed === undefined) throw new Error(`${name} parses to no record`);
  return parsed;
};

describe('free-text stems', () => {
  it('names a stemmed language by its primary subtag; Bokmål and Nynorsk are Norwegian', () => {
    expect(stemLanguage('en-GB')).to.equal('en');
    expect(stemLanguage('FR')).to.equal('fr');
    expect(stemLanguage('nb')).to.equal('no');
    expect(stemLanguage('nn-NO')).to.equal('no');
    expect(stemLanguage('cs')).to.equal(undefined);
    expect(stemLanguage(undefined)).to.equal(undefined);
  });

  it('stems the words of a text in order, lower-case, accents stripped after stemming', () => {
    expect(stemText('Rivers and Lakes, 2020', 'en')).to.deep.equal([
      'river',
      'and',
      'lake',
      '2020',
    ]);
    expect(stemText('Les rivières', 'fr')).to.deep.equal(['le', 'rivi']);
    expect(stemText("l'eau", 'fr')).to.deep.equal(['l', 'eau']);
    // Words of scripts the tokenisers split differently are left to the anytext field.
    expect(stemText('水 rivers', 'en')).to.deep.equal(['river']);
    expect(stemText('a'.repeat(256), 'en')).to.deep.equal([]);
    // Remembered stems are the stems: asked again, the same answer.
    expect(stemText('Rivers and Lakes, 2020', 'en')).to.deep.equal([
      'river',
      'and',
      'lake',
      '2020',
    ]);
  });

  it('stems a record in its own language and each translation in its own', () => {
    const czech = recordStems(record('CZ-CUZK-ATOM-DATA50.xml'));
    // Czech is not stemmed; its English and French translations are.
    expect(Object.keys(czech).sort()).to.deep.equal(['en', 'fr']);
    expect(czech.fr?.split(' ')).to.include('telecharg');
    expect(czech.en?.split(' ')).to.include('hydrographi');
    const french = recordStems(record('OCEANO_MODELE_HYDRODYN.xml'));
    expect(Object.keys(french).sort()).to.deep.equal(['en', 'fr']);
    expect(french.en?.split(' ')).to.include('hydrodynam');
  });

  it('gives a query word its stems in every language, and none past MAX_STEMMED_QUERY_WORDS words', () => {
    const [[rivers]] = freeTextStems([['rivers']]) as [
      [Array<{ language: string; stems: string[] }>],
    ];
    expect(rivers.map((alternative) => alternative.language)).to.deep.equal(
      Object.keys(STEMMED_LANGUAGES),
    );
    expect(rivers.find((alternative) => alternative.language === 'en')?.stems).to.deep.equal([
      'river',
    ]);
    const many = Array.from({ length: MAX_STEMMED_QUERY_WORDS + 1 }, (_, i) => `w${i}`);
    expect(freeTextStems([many]).flat(2)).to.deep.equal([]);
    expect(freeTextStems([many.slice(1)]).flat(2)).to.have.length.greaterThan(0);
  });

  it('writes SQLite stems as language-tagged tokens after the text, and matches them per language', () => {
    expect(ftsText({ anytext: 'Rivers', stems: {} })).to.equal('Rivers');
    expect(ftsText({ anytext: 'Rivers', stems: { en: 'river' } })).to.equal(
      `Rivers \n${stemToken('en', 'river')}`,
    );
    const match = buildFtsMatch([['rivers']]);
    expect(match.startsWith('(("rivers" OR ')).to.equal(true);
    expect(match).to.include(`"${stemToken('en', 'river')}"`);
    expect(match).to.include(`"${stemToken('fr', 'river')}"`);
  });
});
