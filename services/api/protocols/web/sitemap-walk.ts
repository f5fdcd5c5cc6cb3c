/**
 * The record ids behind the sitemaps, read through the SearchBackend's id walk
 * (SearchBackend.walkIds): live records in id order, ids alone or with `updated`, never a count
 * nor a whole record. The index plans files of `perFile` records: each file's last id is found
 * by passing over the file's records after the previous file's last id, which the backend does
 * in its id index (SQLite: an OFFSET in the unique index on `id`; the engines: ranges on the
 * sorted `id` field, one search per result window). A file is read from its first id to its last
 * in a few large batches, each starting after the last id read, so file k costs what file 1
 * costs on every backend.
 */
import type {
  IdWalkEntry,
  SearchBackend,
  SearchOptions,
} from '../../../../shared/search/backend.js';
import type { IdRange } from './sitemap.js';

/** Ids read per call of the walk while a file is written (the engines' result window). */
export const SITEMAP_BATCH = 10_000;

/** The files of the sitemap: the id range of each. */
export interface SitemapPlan {
  files: IdRange[];
}

/**
 * Splits the catalogue into ranges of `perFile` records in id order: each call of the walk
 * passes over `perFile - 1` records after the previous range's last id and reads the next two,
 * the range's last id and whether any record follows it. The last range is open at its end, so
 * records written since are listed (up to the file's bound) until the next reading of the index.
 * An empty catalogue has one open range.
 */
export async function planSitemapFiles(
  backend: SearchBackend,
  perFile: number,
  options: SearchOptions = {},
): Promise<SitemapPlan> {
  const files: IdRange[] = [];
  let after: string | undefined;
  for (;;) {
    const [last, next] = await backend.walkIds({ after, skip: perFile - 1, limit: 2 }, options);
    if (last === undefined || next === undefined) {
      files.push({ after });
      return { files };
    }
    files.push({ after, through: last.id });
    after = last.id;
  }
}

/**
 * The ids of a range with their `updated`, in id order, at most `limit` of them, in batches of
 * `batch`: each batch is the next ids after the last one read, within the range.
 */
export async function* readRange(
  backend: SearchBackend,
  range: IdRange,
  limit: number,
  batch = SITEMAP_BATCH,
  options: SearchOptions = {},
): AsyncGenerator<IdWalkEntry[]> {
  let after = range.after;
  let read = 0;
  while (read < limit) {
    const size = Math.min(batch, limit - read);
    const entries = await backend.walkIds(
      { after, through: range.through, limit: size, withUpdated: true },
      options,
    );
    if (entries.length > 0) yield entries;
    read += entries.length;
    const last = entries.at(-1);
    if (entries.length < size || last === undefined) return;
    after = last.id;
  }
}
