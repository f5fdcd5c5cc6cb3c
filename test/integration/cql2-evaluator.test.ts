/**
 * The whole CQL2 suite (cql2/suite.ts) on the in-memory filter evaluator the engines refine
 * their candidates with (shared/query/evaluate-filter.ts): a minimal backend that keeps the
 * records in an array and selects them with the evaluator alone must give the same features as
 * SQLite and the independent predicates, case by case, with the same refusals (none).
 */
import { buildFilterSubject, compileRecordPredicate } from '../../shared/query/evaluate-filter.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { CoreRecord } from '../../shared/records/core-record.js';
import type { SearchBackend, SearchResult } from '../../shared/search/backend.js';
import { refinedFilter } from '../../shared/search/engine/refine-search.js';
import { describeCql2Suite } from './cql2/suite.js';

/** A SearchBackend over an array, whose searches only the evaluator decides. */
function evaluatorBackend(): SearchBackend {
  const records = new Map<string, CoreRecord>();
  const unused = (): never => {
    throw new Error('not used by the CQL2 suite');
  };
  return {
    kind: 'sqlite',
    init: async () => undefined,
    upsert: async (batch) => {
      for (const record of batch) records.set(record.id, record);
      return { written: batch.length, failures: [] };
    },
    delete: unused,
    applyAtomically: unused,
    childrenExtents: unused,
    aggregate: unused,
    changes: unused,
    walkIds: unused,
    change: unused,
    earliestChange: unused,
    purgeTombstones: unused,
    learnedProperties: unused,
    get: async (id) => records.get(id) ?? null,
    async search(query: SearchQuery): Promise<SearchResult> {
      const filter = refinedFilter(query);
      const predicate = filter ? compileRecordPredicate(filter) : () => true;
      const selected = [...records.values()].filter(
        (record) =>
          (!query.collections || query.collections.includes(record.parentId ?? '')) &&
          predicate(buildFilterSubject(record)) === true,
      );
      return {
        total: selected.length,
        records: selected.slice(query.offset, query.offset + query.limit),
      };
    },
    domain: unused,
    extent: unused,
    health: unused,
    close: async () => undefined,
  };
}

describeCql2Suite('the in-memory evaluator', { open: async () => evaluatorBackend() });
