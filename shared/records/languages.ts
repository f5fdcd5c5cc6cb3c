/**
 * Language tags of multilingual records: the codes the formats use (ISO 639-2/B and /T in ISO
 * 19139 and 19115-3, ISO 639-1 or BCP 47 in Dublin Core, OGC API Records and STAC) become one
 * BCP 47 tag per language, so a record's translations, a `lang` parameter and an
 * Accept-Language header name a language the same way. `localiseRecord` gives the record as
 * it reads in one of its languages.
 */
import type { CoreRecord, Translation } from './core-record.js';

/** ISO 639-2 (bibliographic and terminologic) codes of the languages catalogues use, to 639-1. */
const ISO_639_2_TO_1: Readonly<Record<string, string>> = {
  alb: 'sq',
  sqi: 'sq',
  ara: 'ar',
  baq: 'eu',
  eus: 'eu',
  bul: 'bg',
  cat: 'ca',
  chi: 'zh',
  zho: 'zh',
  cze: 'cs',
  ces: 'cs',
  dan: 'da',
  dut: 'nl',
  nld: 'nl',
  eng: 'en',
  est: 'et',
  fin: 'fi',
  fre: 'fr',
  fra: 'fr',
  ger: 'de',
  deu: 'de',
  gle: 'ga',
  glg: 'gl',
  gre: 'el',
  ell: 'el',
  heb: 'he',
  hrv: 'hr',
  hun: 'hu',
  ice: 'is',
  isl: 'is',
  ita: 'it',
  jpn: 'ja',
  kor: 'ko',
  lav: 'lv',
  lit: 'lt',
  ltz: 'lb',
  mlt: 'mt',
  nor: 'no',
  nob: 'nb',
  nno: 'nn',
  pol: 'pl',
  por: 'pt',
  roh: 'rm',
  rum: 'ro',
  ron: 'ro',
  rus: 'ru',
  slo: 'sk',
  slk: 'sk',
  slv: 'sl',
  spa: 'es',
  swe: 'sv',
  tur: 'tr',
  ukr: 'uk',
  wel: 'cy',
  cym: 'cy',
};

/** ISO 639-1 code → the ISO 639-2/B code ISO 19139 writes (the inverse of the table above). */
const ISO_639_1_TO_2B: Readonly<Record<string, string>> = (() => {
  const inverse: Record<string, string> = {};
  for (const [code3, code2] of Object.entries(ISO_639_2_TO_1)) inverse[code2] ??= code3;
  return inverse;
})();

/** A BCP 47 tag as RFC 5646 allows it: letters and digits in subtags of 1 to 8, joined by '-'. */
const TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * The BCP 47 tag of a language code as a record gives it: ISO 639-2 codes become their 639-1
 * form, subtags are cased as RFC 5646 recommends (language lower, region upper). Returns
 * undefined for a value that is no language tag. Extra text after the code ("eng; CAN", the
 * North American Profile's form) is dropped.
 */
export function toLanguageTag(code: string | undefined): string | undefined {
  const trimmed = code
    ?.trim()
    .split(/[;\s,]/, 1)[0]
    ?.replace(/_/g, '-');
  if (trimmed === undefined || !TAG.test(trimmed)) return undefined;
  const [first = '', ...rest] = trimmed.split('-');
  const language = first.toLowerCase();
  const primary = ISO_639_2_TO_1[language] ?? language;
  const subtags = rest.map((subtag) =>
    subtag.length === 2 ? subtag.toUpperCase() : subtag.toLowerCase(),
  );
  return [primary, ...subtags].join('-');
}

/** The ISO 639-2/B code of a BCP 47 tag's language, as ISO 19139 code lists name it. */
export function toIso639_2(tag: string): string {
  const language = tag.split('-', 1)[0]?.toLowerCase() ?? tag;
  return ISO_639_1_TO_2B[language] ?? language;
}

/** The BCP 47 tag of the record's own language, if it names one. */
export function recordLanguageTag(record: CoreRecord): string | undefined {
  return record.languages?.[0] ?? toLanguageTag(record.language);
}

/** Every language tag the record can be given in, its own first (none for an untagged record). */
export function recordLanguages(record: CoreRecord): string[] {
  const own = recordLanguageTag(record);
  const tags = [...(own === undefined ? [] : [own]), ...(record.languages ?? [])];
  for (const tag of Object.keys(record.translations ?? {})) tags.push(tag);
  return [...new Set(tags)];
}

/**
 * The languages the record's text can be served in: its own, then those it has translations
 * for. A language it only lists (a Records or STAC `languages` member: available elsewhere)
 * is not one, so no answer claims a language its text is not in.
 */
export function servedLanguages(record: CoreRecord): string[] {
  const own = recordLanguageTag(record);
  const tags = own === undefined ? [] : [own];
  for (const tag of Object.keys(record.translations ?? {})) tags.push(tag);
  return [...new Set(tags)];
}

/**
 * Adds a translation of one field to a record, leaving out text that repeats the record's own
 * (a PT_FreeText group in the default locale) and empty text.
 */
export function addTranslation(
  record: CoreRecord,
  tag: string,
  field: 'title' | 'description',
  value: string | undefined,
): void {
  const text = value?.trim();
  if (text === undefined || text === '') return;
  if (tag === recordLanguageTag(record)) return;
  const translations = (record.translations ??= {});
  const translation: Translation = (translations[tag] ??= {});
  translation[field] ??= text;
}

/** Adds the translation of one of the record's keywords to its translations. */
export function addKeywordTranslation(
  record: CoreRecord,
  tag: string,
  keyword: string,
  value: string | undefined,
): void {
  const text = value?.trim();
  if (text === undefined || text === '' || tag === recordLanguageTag(record)) return;
  const translations = (record.translations ??= {});
  const translation: Translation = (translations[tag] ??= {});
  const keywords = (translation.keywords ??= {});
  keywords[keyword] ??= text;
}

/** Completes `languages` from the record's own language and its translations' tags. */
export function settleLanguages(record: CoreRecord): void {
  const tags = recordLanguages(record);
  if (tags.length > 1 || record.translations !== undefined) record.languages = tags;
}

/** Every word of the record's translations, for free-text search. */
export function translatedText(record: CoreRecord): string[] {
  return Object.values(record.translations ?? {}).flatMap((translation) => [
    ...(translation.title === undefined ? [] : [translation.title]),
    ...(translation.description === undefined ? [] : [translation.description]),
    ...Object.values(translation.keywords ?? {}),
  ]);
}

/**
 * The record as it reads in one of its languages: the translated title, description and
 * keywords replace the record's own where the language has them (the others stay as they are), and
 * `language` names the language given. The record itself is returned for its own language or
 * a language it does not have.
 */
export function localiseRecord(record: CoreRecord, tag: string | undefined): CoreRecord {
  if (tag === undefined || tag === recordLanguageTag(record)) return record;
  const translation = record.translations?.[tag];
  if (translation === undefined) return record;
  return {
    ...record,
    title: translation.title ?? record.title,
    description: translation.description ?? record.description,
    keywords: record.keywords.map((keyword) => translation.keywords?.[keyword] ?? keyword),
    language: tag,
  };
}

/** The code of a JSON language object (`{code, name}`, OGC API Records and STAC Language). */
function languageCode(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'code' in value) {
    const code = (value as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * Reads the `language` and `languages` members of an OGC API Record or a STAC object (the
 * STAC Language extension has the same shape): the record's language and every language its
 * resource is available in. Neither standard has translated text, so no translation is read.
 */
export function readJsonLanguages(record: CoreRecord, language: unknown, languages: unknown): void {
  const own = toLanguageTag(languageCode(language));
  const others = (Array.isArray(languages) ? languages : [])
    .map((item) => toLanguageTag(languageCode(item)))
    .filter((tag): tag is string => tag !== undefined);
  record.language ??= languageCode(language);
  const tags = [...new Set([...(own === undefined ? [] : [own]), ...others])];
  if (tags.length > 1) record.languages = tags;
}

/** A language object of the STAC Language extension (and of OGC API Records). */
export interface LanguageObject {
  /** The BCP 47 tag. */
  code: string;
  /** The language's name in itself ("Deutsch"). */
  name?: string;
  /** Its name in English ("German"). */
  alternate?: string;
  /** `rtl` for a language written right to left; left out for the default, `ltr`. */
  dir?: 'rtl';
}

/** Scripts written right to left (ISO 15924 codes), for a language object's `dir`. */
const RIGHT_TO_LEFT_SCRIPTS = new Set([
  'Adlm',
  'Arab',
  'Hebr',
  'Mand',
  'Nkoo',
  'Rohg',
  'Samr',
  'Syrc',
  'Thaa',
]);

/** The name of a language in a display language, or undefined when ICU names no such one. */
function displayName(tag: string, inLanguage: string): string | undefined {
  try {
    return new Intl.DisplayNames([inLanguage], { type: 'language', fallback: 'none' }).of(tag);
  } catch {
    return undefined;
  }
}

/** Language objects already made, by tag (a catalogue names few languages; bounded anyway). */
const LANGUAGE_OBJECTS = new Map<string, Readonly<LanguageObject> | undefined>();
const MAX_LANGUAGE_OBJECTS = 1000;

/** The script a tag is written in: its script subtag, else the likeliest (CLDR likely subtags). */
function likelyScript(tag: string): string | undefined {
  try {
    return new Intl.Locale(tag).maximize().script;
  } catch {
    return undefined;
  }
}

/**
 * The STAC Language extension's object for a BCP 47 tag: its code, its name in itself and in
 * English, and `dir: 'rtl'` for a right-to-left script; undefined for a tag that names no
 * language ICU knows ("english", "xx"), so that only real languages are declared.
 */
export function languageObject(tag: string): Readonly<LanguageObject> | undefined {
  if (LANGUAGE_OBJECTS.has(tag)) return LANGUAGE_OBJECTS.get(tag);
  const made = makeLanguageObject(tag);
  if (LANGUAGE_OBJECTS.size >= MAX_LANGUAGE_OBJECTS) LANGUAGE_OBJECTS.clear();
  LANGUAGE_OBJECTS.set(tag, made);
  return made;
}

function makeLanguageObject(tag: string): Readonly<LanguageObject> | undefined {
  const name = displayName(tag, tag);
  const alternate = displayName(tag, 'en');
  if (name === undefined && alternate === undefined) return undefined;
  const script = likelyScript(tag);
  return Object.freeze({
    code: tag,
    ...(name !== undefined && { name }),
    ...(alternate !== undefined && alternate !== name && { alternate }),
    ...(script !== undefined && RIGHT_TO_LEFT_SCRIPTS.has(script) && { dir: 'rtl' as const }),
  });
}

/**
 * The language a record is shown in and the other languages it is available in, as language
 * objects (the STAC Language extension's `language` and `languages`); undefined when the record
 * names no language ICU knows.
 */
export function recordLanguageObjects(
  record: CoreRecord,
): { language: Readonly<LanguageObject>; languages: Readonly<LanguageObject>[] } | undefined {
  const shown = toLanguageTag(record.language) ?? recordLanguageTag(record);
  const language = shown === undefined ? undefined : languageObject(shown);
  if (shown === undefined || language === undefined) return undefined;
  const languages = recordLanguages(record)
    .filter((tag) => tag !== shown)
    .map(languageObject)
    .filter((object): object is Readonly<LanguageObject> => object !== undefined);
  return { language, languages };
}
