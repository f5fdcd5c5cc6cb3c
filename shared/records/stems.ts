/**
 * Language-aware free text: the record's words in each of its languages reduced to their
 * Snowball stems, so that `q=rivers` finds a record that says "river" in English and
 * `q=rivières` one that says "rivière" in French.
 *
 * Stemming runs here, in Node, for every backend: the index document carries the stems of each
 * language (IndexDocument.stems) and a query word is stemmed the same way, so the three
 * backends match the same stems and answer alike (the differential tests demand it), and the
 * minimal engine distributions, which have no analysis-common module and so no language
 * analysers, stem as well as full ones. The algorithms are the Snowball stemmers the engines'
 * own `snowball` token filter runs (Lucene's org.tartarus.snowball):
 * test/integration/stems-lucene.test.ts checks them word for word against that Lucene jar over
 * samples of the Debian word lists (test/fixtures/stems/). Languages are those where the two agree; see
 * docs/decisions/multilingual-records.md.
 *
 * Tokens: runs of letters, combining marks and digits, lower-cased. Both the engine's
 * `standard` analyser and FTS5's `unicode61` keep such a run of Latin, Greek or Cyrillic
 * letters as one token, so the stems, joined by spaces, are indexed as they are given.
 */
import { createRequire } from 'node:module';
import type * as Snowball from 'snowball-stemmers';
import { countFreeTextTokens } from '../query/query-limits.js';
import { stripAccents } from '../query/text-folding.js';
import type { CoreRecord } from './core-record.js';
import { recordLanguageTag } from './languages.js';

/** The languages Cairn stems, by BCP 47 primary subtag, with their Snowball algorithm. */
export const STEMMED_LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  da: 'danish',
  de: 'german',
  en: 'english',
  es: 'spanish',
  fr: 'french',
  it: 'italian',
  nl: 'dutch',
  no: 'norwegian',
  pt: 'portuguese',
  sv: 'swedish',
});

/** Norwegian Bokmål and Nynorsk share Snowball's Norwegian stemmer. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = { nb: 'no', nn: 'no' };

/** A word of at least one letter or digit: the unit both text analysers keep whole. */
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

/** Scripts the `standard` tokenizer keeps as one token per run (CJK it splits per character). */
const STEMMABLE = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{M}\p{N}]+$/u;

/** The `standard` tokenizer cuts longer tokens (max_token_length); such words are not stemmed. */
const MAX_TOKEN_LENGTH = 255;

// A CommonJS module marked `__esModule` without a default export: required, so that every
// loader (Node's ESM, tsx) reads the same exports.
const snowball = createRequire(import.meta.url)('snowball-stemmers') as typeof Snowball;

const stemmers = new Map<string, Snowball.Stemmer>();

function stemmer(language: string): Snowball.Stemmer {
  let found = stemmers.get(language);
  if (found === undefined) {
    found = snowball.newStemmer(STEMMED_LANGUAGES[language] as string);
    stemmers.set(language, found);
  }
  return found;
}

/** The stemmed language a BCP 47 tag names ("en-GB" → "en"), if Cairn stems it. */
export function stemLanguage(tag: string | undefined): string | undefined {
  if (tag === undefined) return undefined;
  const primary = tag.toLowerCase().split('-')[0] ?? '';
  const language = LANGUAGE_ALIASES[primary] ?? primary;
  return Object.hasOwn(STEMMED_LANGUAGES, language) ? language : undefined;
}

/**
 * Words remembered with their stem, per language. The Snowball port takes tens of
 * microseconds a word, so a record's stems took about as long as parsing it; a word met again
 * costs a map lookup (docs/decisions/multilingual-records.md). At most this many a language; a
 * full map is emptied and fills again, which bounds what query words can make it hold.
 */
const MAX_REMEMBERED_STEMS = 50_000;

const remembered = new Map<string, Map<string, string>>();

/** A word's stem as indexed: Snowball's, accents stripped after stemming, lower-case. */
function indexedStem(word: string, language: string): string {
  let words = remembered.get(language);
  if (words === undefined) {
    words = new Map();
    remembered.set(language, words);
  }
  let stem = words.get(word);
  if (stem === undefined) {
    stem = stripAccents(stemmer(language).stem(word)).toLowerCase();
    if (words.size >= MAX_REMEMBERED_STEMS) words.clear();
    words.set(word, stem);
  }
  return stem;
}

/**
 * The stems of a text in one stemmed language, in the order of its words, accents stripped
 * after stemming (the engines' free text folds accents the same way). Words in other scripts
 * are left out: the anytext field finds them.
 */
export function stemText(text: string, language: string): string[] {
  const stems: string[] = [];
  for (const [word] of text.toLowerCase().matchAll(TOKEN)) {
    if (word.length > MAX_TOKEN_LENGTH || !STEMMABLE.test(word)) continue;
    stems.push(indexedStem(word, language));
  }
  return stems;
}

/** The record's own text and each translation's, by stemmed language, joined for stemming. */
function textsByLanguage(record: CoreRecord): Map<string, string[]> {
  const texts = new Map<string, string[]>();
  const add = (tag: string | undefined, parts: Array<string | undefined>): void => {
    const language = stemLanguage(tag);
    if (language === undefined) return;
    const list = texts.get(language) ?? [];
    list.push(...parts.filter((part): part is string => Boolean(part)));
    texts.set(language, list);
  };
  add(recordLanguageTag(record), [record.title, record.description, ...record.keywords]);
  for (const [tag, translation] of Object.entries(record.translations ?? {})) {
    add(tag, [
      translation.title,
      translation.description,
      ...Object.values(translation.keywords ?? {}),
    ]);
  }
  return texts;
}

/**
 * The record's stems by stemmed language, each a space-separated list: its own title,
 * description and keywords under its own language, and each translation under the
 * translation's. A record whose language is none Cairn stems has none.
 */
export function recordStems(record: CoreRecord): Record<string, string> {
  const stems: Record<string, string> = {};
  for (const [language, parts] of textsByLanguage(record)) {
    const words = stemText(parts.join(' \n'), language);
    if (words.length > 0) stems[language] = words.join(' ');
  }
  return stems;
}

/** One way a query word can match through stems: its stems in one language, as a phrase. */
export interface StemmedWord {
  language: string;
  stems: string[];
}

/**
 * Free text of more words than this (as the engine counts them) is matched word for word, without
 * stems: each word's stems add up to one phrase per stemmed language to the query, and
 * OpenSearch refuses a query of over 1,024 leaf clauses (`indices.query.bool.max_clause_count`).
 * 64 words with their stems in ten languages make at most 704 (docs/decisions/multilingual-records.md).
 */
export const MAX_STEMMED_QUERY_WORDS = 64;

/** A word's stems in every stemmed language in which it has any. */
function wordStems(word: string): StemmedWord[] {
  const alternatives: StemmedWord[] = [];
  for (const language of Object.keys(STEMMED_LANGUAGES)) {
    const stems = stemText(word, language);
    if (stems.length > 0) alternatives.push({ language, stems });
  }
  return alternatives;
}

/**
 * The stems of every word of a free text (OR over terms, AND over words), in the text's shape:
 * for each word, its stems in every stemmed language in which it has any, or none at all when
 * the text has more than MAX_STEMMED_QUERY_WORDS words. Every backend matches a word by itself
 * or by one of these.
 */
export function freeTextStems(text: readonly (readonly string[])[]): StemmedWord[][][] {
  const stemmed = countFreeTextTokens(text) <= MAX_STEMMED_QUERY_WORDS;
  return text.map((words) => words.map((word) => (stemmed ? wordStems(word) : [])));
}
