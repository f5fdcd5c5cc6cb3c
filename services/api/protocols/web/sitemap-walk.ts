/**
 * The record ids behind the sitemaps, read through the SearchBackend in id order with keyset
 * ranges: `id > after AND id <= through` as a checked filter, which SQLite answers on its id
 * index and the search engines with a range on the id field of an index sorted by id. A file's
 * records are read in batches from one id to the next, so the cost of a file does not grow
 * with how deep in the catalogue it starts, on any backend; the index finds each file's last
 * id with one search of the records after the previous file's (the engines' deep paging serves
 * the offsets past their result window).
 */
import { checkFilter } from '../../../../shared/query/check-filter.js';
import type { CheckedFilter } from '../../../../shared/query/checked-filter.js';
import type { Expression } from '../../../../shared/query/filter-ast.js';
import type { CoreRecord } from '../../../../shared/records/core-record.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import type { SearchQuery } from '../../../../shared/query/search-query.js';
import type { IdRange } from './sitemap.js';

/** Records read per search while a file is written. */
export const SITEMAP_BATCH = 500;

function compareId(op: '>' | '<=', id: string): Expression {
  return {
    kind: 'op',
    op,
    args: [
      { kind: 'property', name: 'id' },
      { kind: 'literal', value: id },
    ],
  };
}

/** The checked filter of a range of ids; undefined for the whole catalogue. */
export function rangeFilter(range: IdRange): CheckedFilter | undefined {
  const parts = [
    ...(range.after !== undefined ? [compareId('>', range.after)] : []),
    ...(range.through !== undefined ? [compareId('<=', range.through)] : []),
  ];
  if (parts.length === 0) return undefined;
  return checkFilter(parts.length === 1 ? parts[0]! : { kind: 'op', op: 'and', args: parts });
}

/** A search of a range of ids in id order (the default order, ending in the id). */
function rangeQuery(range: IdRange, offset: number, limit: number): SearchQuery {
  const filter = rangeFilter(range);
  return { ...(filter ? { filter } : {}), sort: [], offset, limit };
}

/** The files of the sitemap: how many records there are, and the id range of each file. */
export interface SitemapPlan {
  total: number;
  files: IdRange[];
}

/**
 * Splits the catalogue into ranges of `perFile` records in id order: the first search counts
 * the records and finds the last id of the first file, each next one the last id of the next
 * file among the records after it. The last range is open at its end, so records written since
 * are listed (up to the file's bound) until the next reading of the index.
 */
export async function planSitemapFiles(
  backend: SearchBackend,
  perFile: number,
): Promise<SitemapPlan> {
  const files: IdRange[] = [];
  let total: number | undefined;
  let after: string | undefined;
  for (;;) {
    const result = await backend.search(rangeQuery({ after }, perFile - 1, 1));
    total ??= result.total;
    const last = result.records[0];
    if (last === undefined || result.total <= perFile) {
      files.push({ after });
      return { total, files };
    }
    files.push({ after, through: last.id });
    after = last.id;
  }
}

/**
 * The records of a range in id order, at most `limit` of them, in batches of `batch`: each
 * batch is the next records after the last one read, within the range.
 */
export async function* readRange(
  backend: SearchBackend,
  range: IdRange,
  limit: number,
  batch = SITEMAP_BATCH,
): AsyncGenerator<CoreRecord[]> {
  let after = range.after;
  let read = 0;
  while (read < limit) {
    const size = Math.min(batch, limit - read);
    const { records } = await backend.search(
      rangeQuery({ after, through: range.through }, 0, size),
    );
    if (records.length > 0) yield records;
    read += records.length;
    const last = records.at(-1);
    if (records.length < size || last === undefined) return;
    after = last.id;
  }
}
