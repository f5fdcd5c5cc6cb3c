/**
 * What the harvest run needs from a source, whatever its protocol: its records page by page
 * (all, or those modified since a date), and — for incremental runs — the full list of its
 * identifiers and a way to fetch records by id.
 */
import type { SourceFormat } from '../../records/core-record.js';
import { HarvestSourceError } from '../source-client.js';

/** One harvested metadata document (one record, as the source wrote it). */
export interface HarvestedDocument {
  /** Names the document in failure reasons: where it came from. */
  name: string;
  content: string;
  format?: SourceFormat | undefined;
}

export interface SourceAdapter {
  /** Every record, or only those modified since `modifiedSince`, page by page. */
  pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]>;
  /** Present when the source can list identifiers, fetch by id and filter by modification date. */
  incremental?: {
    /** Every identifier the source holds, page by page. */
    identifiers(): AsyncIterable<string[]>;
    /** Records by id; ids the source no longer has are skipped. */
    fetchByIds(ids: string[]): AsyncIterable<HarvestedDocument[]>;
  };
  /**
   * Present when the source reports the records deleted since a date in its incremental pages
   * (OAI-PMH): read after `pages({ modifiedSince })` has been walked to its end.
   */
  deletions?: { deletedIds(): readonly string[] };
}

/**
 * The base of an adapter that can also harvest incrementally: it lists the identifiers the
 * source holds and fetches records by id.
 */
export abstract class IncrementalSourceAdapter implements SourceAdapter {
  readonly incremental: NonNullable<SourceAdapter['incremental']> = {
    identifiers: () => this.identifiers(),
    fetchByIds: (ids) => this.fetchByIds(ids),
  };

  abstract pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]>;
  /** Every identifier the source holds, page by page. */
  protected abstract identifiers(): AsyncIterable<string[]>;
  /** Records by id; ids the source no longer has are skipped. */
  protected abstract fetchByIds(ids: string[]): AsyncIterable<HarvestedDocument[]>;
}

/** Most pages one listing may take (a guard against sources whose paging never ends). */
export const MAX_PAGES = 100_000;

/** Keeps track of paging: refuses a page link seen before, and too many pages. */
export class PageGuard {
  private readonly seen = new Set<string>();

  constructor(private readonly url: string) {}

  /** Call before fetching each page, with a key naming it (URL, body, start position). */
  next(key: string): void {
    if (this.seen.has(key))
      throw new HarvestSourceError(`${this.url}: the source's paging loops back (${key})`, true);
    if (this.seen.size >= MAX_PAGES)
      throw new HarvestSourceError(`${this.url}: more than ${MAX_PAGES} pages`, true);
    this.seen.add(key);
  }
}

/**
 * Checks that a complete listing saw as many records as the source said it holds; otherwise
 * deletions would be computed from a partial list. Retryable: the source may have changed
 * while it was paged.
 */
export function checkComplete(url: string, seen: number, matched: number | undefined): void {
  if (matched === undefined || seen === matched) return;
  throw new HarvestSourceError(
    `${url}: the listing returned ${seen} records but the source reports ${matched}; nothing was deleted`,
    false,
  );
}

/** A URL with query parameters set (replacing those of the same name). */
export function withQuery(url: string, parameters: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined) target.searchParams.set(name, value);
  return target.href;
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    chunks.push(items.slice(start, start + size));
  return chunks;
}
