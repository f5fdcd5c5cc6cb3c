/**
 * Language negotiation for multilingual records: a `lang` parameter, else the Accept-Language
 * header (RFC 9110 §12.5.4), chooses among the languages a record has by the RFC 4647 §3.4
 * "lookup" scheme; the record's own language is the default. Pure functions: the routes pass
 * the parameter and the header in as text.
 *
 * Bad input never fails a request: a malformed Accept-Language header is ignored as a whole
 * (RFC 9110 lets a server ignore a header it cannot parse), an unknown `lang` falls back to the
 * default, and the answer's Content-Language says which language it is in.
 */
import type { Response } from 'express';
import type { CoreRecord, Link } from '../../../shared/records/core-record.js';
import {
  localiseRecord,
  servedLanguages,
  toLanguageTag,
} from '../../../shared/records/languages.js';

/** One language range of an Accept-Language header with its weight. */
export interface LanguageRange {
  range: string;
  quality: number;
}

/** A language range (RFC 4647 §2.1): `*` or subtags of 1–8 letters/digits, the first letters. */
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
/** A weight (RFC 9110 §12.4.2): 0 to 1 with at most three decimals. */
const QUALITY = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The longest Accept-Language header read; a longer one is ignored. */
export const MAX_ACCEPT_LANGUAGE_LENGTH = 1024;

/**
 * The ranges of an Accept-Language header, best first (equal weights keep the header's order),
 * without those of weight 0. Returns undefined for a malformed header (or one too long).
 */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] | undefined {
  if (header === undefined || header.length > MAX_ACCEPT_LANGUAGE_LENGTH) return undefined;
  const ranges: (LanguageRange & { order: number })[] = [];
  const parts = header.split(',');
  for (const [order, part] of parts.entries()) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const [range = '', ...parameters] = trimmed.split(';').map((piece) => piece.trim());
    if (!RANGE.test(range)) return undefined;
    let quality = 1;
    for (const parameter of parameters) {
      const match = /^q=(.*)$/i.exec(parameter);
      if (match === null || !QUALITY.test(match[1] ?? '')) return undefined;
      quality = Number(match[1]);
    }
    if (quality > 0) ranges.push({ range, quality, order });
  }
  ranges.sort((a, b) => b.quality - a.quality || a.order - b.order);
  return ranges.map(({ range, quality }) => ({ range, quality }));
}

/**
 * RFC 4647 §3.4 lookup of one range among the available tags: the range, then the range with
 * its last subtag (and a single-letter subtag before it) cut off, until a tag matches; case is
 * ignored. `*` matches nothing here: the caller's default answers it.
 */
export function lookupRange(range: string, available: readonly string[]): string | undefined {
  if (range === '*') return undefined;
  const byLower = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  let candidate = range.toLowerCase();
  for (;;) {
    const found = byLower.get(candidate);
    if (found !== undefined) return found;
    const cut = candidate.lastIndexOf('-');
    if (cut < 0) return undefined;
    candidate = candidate.slice(0, cut);
    if (candidate.length >= 2 && candidate.at(-2) === '-') candidate = candidate.slice(0, -2);
  }
}

/** What a negotiation chose. */
export interface LanguageChoice {
  /** The language of the answer: one of the available tags, else the default. */
  language: string | undefined;
  /** True when the request asked for a language (by `lang` or the header) it did not get. */
  fellBack: boolean;
}

/**
 * Chooses the language of an answer among `available` (BCP 47 tags, the record's own first):
 * the `lang` parameter when given (ISO 639-2 codes are accepted too: "fre" is French), else
 * the Accept-Language header's ranges in order, else the default (`available[0]`, or
 * `fallback` when the record names no language).
 */
export function chooseLanguage(
  available: readonly string[],
  lang: string | undefined,
  acceptLanguage: string | undefined,
  fallback?: string,
): LanguageChoice {
  const byDefault = available[0] ?? fallback;
  if (lang !== undefined && lang.trim() !== '') {
    const tag = toLanguageTag(lang);
    const found = tag === undefined ? undefined : lookupRange(tag, available);
    return found === undefined
      ? { language: byDefault, fellBack: true }
      : { language: found, fellBack: false };
  }
  const ranges = parseAcceptLanguage(acceptLanguage);
  if (ranges === undefined || ranges.length === 0) return { language: byDefault, fellBack: false };
  for (const { range } of ranges) {
    const tag = range === '*' ? '*' : (toLanguageTag(range) ?? range);
    const found = lookupRange(tag, available);
    if (found !== undefined) return { language: found, fellBack: false };
    if (range === '*') return { language: byDefault, fellBack: false };
  }
  return { language: byDefault, fellBack: true };
}

/** The `lang` query parameter as one string (the first when repeated), if given. */
export function langParameter(query: unknown): string | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const value = (query as Record<string, unknown>).lang;
  const first = Array.isArray(value) ? (value[0] as unknown) : value;
  return typeof first === 'string' ? first : undefined;
}

/** A record as negotiated for one answer. */
export interface NegotiatedRecord {
  /** The record in the chosen language (localiseRecord). */
  record: CoreRecord;
  /** The language of the answer, for Content-Language (undefined when the record names none). */
  language: string | undefined;
  /** The other languages the record's text is in, for hreflang alternates. */
  others: string[];
}

/**
 * Chooses the language of one record's answer among those its text is in (its own and its
 * translations') and gives the record in it.
 */
export function negotiateRecordLanguage(
  record: CoreRecord,
  lang: string | undefined,
  acceptLanguage: string | undefined,
): NegotiatedRecord {
  const available = servedLanguages(record);
  const { language } = chooseLanguage(available, lang, acceptLanguage);
  return {
    record: localiseRecord(record, language),
    language,
    others: available.filter((tag) => tag !== language),
  };
}

/**
 * The links to the record in its other languages (rel alternate with hreflang), `urlFor`
 * giving the address of the same representation in a language.
 */
export function languageAlternates(
  negotiated: NegotiatedRecord,
  type: string,
  urlFor: (tag: string) => string,
): Link[] {
  return negotiated.others.map((tag) => ({
    href: urlFor(tag),
    rel: 'alternate',
    type,
    hreflang: tag,
    title: `This record in ${tag}`,
  }));
}

/** A URL with `lang` set to a language tag (replacing any `lang` it had). */
export function withLang(url: string, tag: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('lang', tag);
  return parsed.toString();
}

/**
 * Sets Content-Language to the answer's language and adds Accept-Language to Vary: the same
 * URL answers differently by that header.
 */
export function setContentLanguage(response: Response, language: string | undefined): void {
  if (language !== undefined) response.set('Content-Language', language);
  response.vary('Accept-Language');
}

/**
 * The records of a page, each in the language the request asks for where it has it (else in
 * its own): a page mixes records of many languages, so no one Content-Language describes it.
 */
export function localiseRecords(
  records: readonly CoreRecord[],
  lang: string | undefined,
  acceptLanguage: string | undefined,
): CoreRecord[] {
  if ((lang === undefined || lang.trim() === '') && acceptLanguage === undefined) {
    return [...records];
  }
  return records.map((record) =>
    record.translations === undefined
      ? record
      : negotiateRecordLanguage(record, lang, acceptLanguage).record,
  );
}
