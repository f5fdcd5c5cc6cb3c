/**
 * Reads the translations of an ISO 19139 or ISO 19115-3 record: the locales it declares
 * (`gmd:locale/gmd:PT_Locale`; `mdb:defaultLocale` and `mdb:otherLocale` with `lan:PT_Locale`)
 * and the `PT_FreeText` groups of its title, abstract and keywords, whose
 * `LocalisedCharacterString/@locale` points at a locale by its id ("#FR").
 *
 * Decisions:
 * - a locale is named by its language code, made a BCP 47 tag (languages.ts); a reference to
 *   an undeclared locale is read as a language code itself ("#EN" → en), as GeoNetwork's
 *   records do, and dropped when it is none;
 * - text in the record's own language (the default locale's group, which repeats the
 *   CharacterString) is no translation and is left out;
 * - the two encodings name the elements alike, so they are matched by local name.
 */
import type { CoreRecord } from '../../core-record.js';
import { attr, type XmlElement } from '../../../xml/index.js';
import {
  addKeywordTranslation,
  addTranslation,
  recordLanguageTag,
  settleLanguages,
  toLanguageTag,
} from '../../languages.js';

function childrenNamed(element: XmlElement | undefined, local: string): XmlElement[] {
  return element === undefined ? [] : element.children.filter((item) => item.local === local);
}

function firstNamed(element: XmlElement | undefined, local: string): XmlElement | undefined {
  return element?.children.find((item) => item.local === local);
}

/** The language code of a PT_Locale: its LanguageCode's code list value, else its text. */
function localeLanguage(locale: XmlElement): string | undefined {
  const holder = firstNamed(locale, 'languageCode') ?? firstNamed(locale, 'language');
  const code = firstNamed(holder, 'LanguageCode');
  return (
    attr(code, '', 'codeListValue') ?? code?.text ?? firstNamed(holder, 'CharacterString')?.text
  );
}

/** The record's locales: PT_Locale id → BCP 47 tag, and the tag of the default locale. */
export function readIsoLocales(root: XmlElement): { byId: Map<string, string>; own?: string } {
  const byId = new Map<string, string>();
  let own: string | undefined;
  for (const holder of root.children) {
    if (!['locale', 'defaultLocale', 'otherLocale'].includes(holder.local)) continue;
    const locale = firstNamed(holder, 'PT_Locale');
    if (locale === undefined) continue;
    const tag = toLanguageTag(localeLanguage(locale));
    if (tag === undefined) continue;
    const id = attr(locale, '', 'id');
    if (id !== undefined) byId.set(id, tag);
    if (holder.local === 'defaultLocale') own ??= tag;
    else if (id === undefined) byId.set(tag, tag);
  }
  return own === undefined ? { byId } : { byId, own };
}

/** The localised strings of an ISO free-text property, by BCP 47 tag. */
export function readFreeText(
  property: XmlElement | undefined,
  locales: Map<string, string>,
): [string, string][] {
  const texts: [string, string][] = [];
  for (const freeText of childrenNamed(property, 'PT_FreeText')) {
    for (const group of childrenNamed(freeText, 'textGroup')) {
      for (const localised of childrenNamed(group, 'LocalisedCharacterString')) {
        const reference = attr(localised, '', 'locale')?.trim().replace(/^#/, '');
        if (reference === undefined || reference === '') continue;
        const tag = locales.get(reference) ?? toLanguageTag(reference);
        const value = localised.text.trim();
        if (tag !== undefined && value !== '') texts.push([tag, value]);
      }
    }
  }
  return texts;
}

/** The title, abstract and keyword properties whose translations the record keeps. */
export interface IsoTextProperties {
  title: XmlElement | undefined;
  abstract: XmlElement | undefined;
  keywords: XmlElement[];
}

/** Fills `translations` and `languages` of a record read from ISO 19139 or 19115-3. */
export function readIsoTranslations(
  record: CoreRecord,
  root: XmlElement,
  properties: IsoTextProperties,
): void {
  const { byId, own } = readIsoLocales(root);
  if (byId.size === 0 && own === undefined && !hasFreeText(properties)) return;
  const ownTag = own ?? toLanguageTag(record.language);
  if (ownTag !== undefined) record.languages = [ownTag];
  for (const [tag, value] of readFreeText(properties.title, byId)) {
    addTranslation(record, tag, 'title', value);
  }
  for (const [tag, value] of readFreeText(properties.abstract, byId)) {
    addTranslation(record, tag, 'description', value);
  }
  for (const keyword of properties.keywords) {
    const own = ownText(keyword);
    if (own === undefined) continue;
    for (const [tag, value] of readFreeText(keyword, byId)) {
      addKeywordTranslation(record, tag, own, value);
    }
  }
  const tags = [...byId.values()].filter((tag) => tag !== recordLanguageTag(record));
  record.languages = [...new Set([...(record.languages ?? []), ...tags])];
  settleLanguages(record);
  if (record.languages.length <= 1 && record.translations === undefined) {
    delete record.languages;
  }
}

/** The text of a free-text property in the record's own language (CharacterString or Anchor). */
function ownText(property: XmlElement): string | undefined {
  const value = property.children
    .find((item) => item.local === 'CharacterString' || item.local === 'Anchor')
    ?.text.trim();
  return value === '' ? undefined : value;
}

function hasFreeText(properties: IsoTextProperties): boolean {
  return [properties.title, properties.abstract, ...properties.keywords].some(
    (property) => firstNamed(property, 'PT_FreeText') !== undefined,
  );
}
