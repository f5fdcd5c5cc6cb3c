/**
 * The door's memory of where next pages start (shared/search/next-page-offsets.ts) and its use
 * by the query-limited backend: a deep sorted page is answered where an earlier page ended, on
 * this process or, with a shared store, on another.
 */
import { expect } from 'chai';
import { QueryLimitError } from '../../shared/errors/index.js';
import type { SearchQuery } from '../../shared/query/search-query.js';
import type { SearchBackend, SearchResult } from '../../shared/search/backend.js';
import type { SortValue } from '../../shared/search/engine/engine-adapter.js';
import type { Checkpoint, CheckpointStore } from '../../shared/search/engine/sort-checkpoints.js';
import {
  localNextPages,
  sharedNextPages,
  type NextPageStore,
} from '../../shared/search/next-page-offsets.js';
import { withQueryLimits } from '../../shared/search/query-limited-backend.js';
import { defined } from '../support/defined.js';
import { smallQueryLimits } from '../support/small-query-limits.js';

const LIMITS = smallQueryLimits({ maxOffset: 20 });

/** A backend whose every page is full; records the queries it ran. */
function fullPages(ran: SearchQuery[]): SearchBackend {
  const search = async (query: SearchQuery): Promise<SearchResult> => {
    ran.push(query);
    return {
      total: 1000,
      records: Array.from({ length: query.limit }, () => ({}) as SearchResult['records'][number]),
    };
  };
  return { search, close: async () => undefined } as unknown as SearchBackend;
}

/** A CheckpointStore in memory, standing for Redis. */
function memoryStore(): CheckpointStore & { closed: boolean } {
  const entries = new Map<string, SortValue[]>();
  return {
    closed: false,
    get: async (key: string, offset: number) => entries.get(`${key}@${offset}`),
    nearestBelow: async (): Promise<Checkpoint | undefined> => undefined,
    set: async (key: string, offset: number, after: SortValue[]) => {
      entries.set(`${key}@${offset}`, after);
    },
    async close() {
      this.closed = true;
    },
  };
}

const sorted = (offset: number): SearchQuery => ({
  sort: [
    { field: 'title', direction: 'asc' },
    { field: 'title', direction: 'desc' },
  ],
  offset,
  limit: 10,
});

async function refused(promise: Promise<unknown>): Promise<QueryLimitError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(QueryLimitError);
    return error as QueryLimitError;
  }
  throw new Error('expected a QueryLimitError');
}

describe('next-page offsets at the door', () => {
  it('answers deep sorted pages reached page by page, refuses a cold one', async () => {
    const ran: SearchQuery[] = [];
    const door = withQueryLimits(fullPages(ran), LIMITS, localNextPages());
    for (let offset = 0; offset <= 50; offset += 10) await door.search(sorted(offset));
    expect(ran.map((query) => query.offset)).to.deep.equal([0, 10, 20, 30, 40, 50]);
    expect(defined(ran[5], 'the sixth query').sort).to.deep.equal([
      { field: 'title', direction: 'asc' },
    ]);
    const error = await refused(door.search(sorted(70)));
    expect(error.message).to.contain('QUERY_MAX_OFFSET');
    expect(ran).to.have.length(6);
  });

  it('continues on another process through the shared store, connected on the first deep page', async () => {
    const store = memoryStore();
    let connections = 0;
    const connect = async () => {
      connections += 1;
      return store;
    };
    const first: NextPageStore = sharedNextPages(connect);
    const second: NextPageStore = sharedNextPages(connect);
    const ranA: SearchQuery[] = [];
    const ranB: SearchQuery[] = [];
    const doorA = withQueryLimits(fullPages(ranA), LIMITS, first);
    const doorB = withQueryLimits(fullPages(ranB), LIMITS, second);
    await doorA.search(sorted(0));
    expect(connections).to.equal(0);
    for (let offset = 10; offset <= 30; offset += 10) await doorA.search(sorted(offset));
    expect(connections).to.equal(1);
    await doorB.search(sorted(40));
    expect(ranB.map((query) => query.offset)).to.deep.equal([40]);
    await refused(doorB.search(sorted(60)));
    await doorB.close();
    expect(store.closed).to.equal(true);
  });
});
