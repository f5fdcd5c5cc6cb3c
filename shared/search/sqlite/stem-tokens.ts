/**
 * The record's stems in SQLite's one free-text column: each stem is written as a token tagged
 * with its language, `\uE000` + language + `\uE000` + stem. FTS5's `unicode61` tokenizer keeps
 * private-use characters inside tokens, so a tagged stem is one token that no word of the
 * record's own text (which has no private-use characters in any real record) can equal, and a
 * phrase of tagged stems matches only the same language's stems, as `stems.<language>` does
 * on the engines. Written after the record's text, so the stems of one text stay adjacent for
 * phrases; the text index needs no second table and relevance stays one bm25 over one column.
 */
import type { IndexDocument } from '../../records/index-document.js';

const TAG = '\uE000';

/** One stem as its tagged token. */
export function stemToken(language: string, stem: string): string {
  return `${TAG}${language}${TAG}${stem}`;
}

/** The text the FTS5 column indexes: the record's free text, then its tagged stems. */
export function ftsText(document: Pick<IndexDocument, 'anytext' | 'stems'>): string {
  const tagged = Object.entries(document.stems).map(([language, stems]) =>
    stems
      .split(' ')
      .map((stem) => stemToken(language, stem))
      .join(' '),
  );
  return tagged.length === 0 ? document.anytext : [document.anytext, ...tagged].join(' \n');
}
