import { expect } from 'chai';
import type { SearchQuery } from '../../../shared/query/search-query.js';
import {
  FilterError,
  InternalError,
  InvalidParameterError,
  ServiceUnavailableError,
} from '../../../shared/errors/index.js';
import { parseCql2Text } from '../../../shared/query/cql2/index.js';
import { parseDocuments } from '../../../shared/records/formats/index.js';
import type { CoreRecord } from '../../../shared/records/core-record.js';
import {
  classifyClientError,
  EngineError,
  type BulkItemResult,
  type EngineAdapter,
  type EngineSearchRequest,
  type EngineSearchResponse,
  type JsonObject,
} from '../../../shared/search/engine/engine-adapter.js';
import { describeBulkFailure } from '../../../shared/search/engine/bulk-writer.js';
import { EngineBackend } from '../../../shared/search/engine/engine-backend.js';
import { toReadError } from '../../../shared/search/engine/engine-errors.js';
import { SortCheckpoints } from '../../../shared/search/engine/sort-checkpoints.js';
import { generateRecords } from '../../../scripts/corpus/generator.js';
import { checkFilter } from '../../../shared/query/check-filter.js';
import { defined } from '../../support/defined.js';

/** An in-memory stand-in for the engine: records calls, answers what a test scripts. */
class FakeAdapter implements EngineAdapter {
  readonly engine = 'opensearch' as const;
  bulkCalls: JsonObject[][] = [];
  searches: EngineSearchRequest[] = [];
  bulkAnswer: (lines: JsonObject[], call: number) => BulkItemResult[] = (lines) =>
    lines
      .filter((line) => 'index' in line || 'delete' in line)
      .map((line) => ({
        id: String((Object.values(line)[0] as { _id: string })._id),
        status: 200,
        result: 'created',
      }));
  searchAnswer: (request: EngineSearchRequest) => EngineSearchResponse = () => ({
    hits: { total: { value: 0, relation: 'eq' }, hits: [] },
  });
  failWith?: unknown;

  private check(): void {
    if (this.failWith) throw classifyClientError(this.failWith);
  }
  async search(request: EngineSearchRequest): Promise<EngineSearchResponse> {
    this.check();
    this.searches.push(request);
    return this.searchAnswer(request);
  }
  async searchText(request: EngineSearchRequest): Promise<string> {
    return JSON.stringify(await this.search(request));
  }
  async searchMany(index: string, bodies: readonly JsonObject[]): Promise<EngineSearchResponse[]> {
    this.check();
    return bodies.map((body) => {
      this.searches.push({ index, body });
      return this.searchAnswer({ index, body });
    });
  }
  async count(): Promise<number> {
    this.check();
    return 0;
  }
  async bulk(body: Buffer): Promise<BulkItemResult[]> {
    this.check();
    // The body arrives encoded, as the clients send it; the fake reads its lines back.
    const text = body.toString('utf8');
    expect(text.endsWith('\n'), 'a bulk body ends with a newline').to.equal(true);
    const lines = text
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as JsonObject);
    this.bulkCalls.push(lines);
    return this.bulkAnswer(lines, this.bulkCalls.length);
  }
  async getSource(): Promise<JsonObject | null> {
    this.check();
    return null;
  }
  async indexDocument(): Promise<void> {}
  async openPointInTime(): Promise<string> {
    return 'pit';
  }
  async closePointInTime(): Promise<void> {}
  async putComponentTemplate(): Promise<void> {
    this.check();
  }
  async putIndexTemplate(): Promise<void> {
    this.check();
  }
  async deleteIndexTemplate(): Promise<void> {}
  async deleteComponentTemplate(): Promise<void> {}
  async indexExists(): Promise<boolean> {
    return true;
  }
  async createIndex(): Promise<void> {}
  async deleteIndex(): Promise<void> {}
  async aliasTargets(): Promise<string[]> {
    this.check();
    return ['cairn-records-v1'];
  }
  async updateAliases(): Promise<void> {}
  async getMappings(): Promise<Record<string, JsonObject>> {
    return {
      'cairn-records-v1': { _meta: { cairn: { spatial: 'envelope' } }, properties: {} },
    };
  }
  async putSettings(): Promise<void> {}
  async putMapping(): Promise<void> {}
  async refresh(): Promise<void> {}
  async mergeSegments(): Promise<void> {}
  async clusterHealth(): Promise<{ status: string }> {
    this.check();
    return { status: 'green' };
  }
  async close(): Promise<void> {}
}

function records(count: number): CoreRecord[] {
  return parseDocuments(JSON.stringify([...generateRecords(count, 3)])).records;
}

const connectionError = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:9200'), {
  name: 'ConnectionError',
});
const badRequest = Object.assign(new Error('[query_shard_exception] failed to create query'), {
  name: 'ResponseError',
  statusCode: 400,
  meta: { statusCode: 400, body: { error: { type: 'search_phase_execution_exception' } } },
});

/** Whether a bulk call goes to the tombstones index (what every write sends after its records). */
function isTombstoneCall(lines: JsonObject[]): boolean {
  const [action] = Object.values(lines[0] ?? {}) as { _index?: string }[];
  return action?._index === 'cairn-tombstones';
}

describe('engine backend (fake adapter)', () => {
  let adapter: FakeAdapter;
  let backend: EngineBackend;

  beforeEach(async () => {
    adapter = new FakeAdapter();
    backend = new EngineBackend({
      engine: 'opensearch',
      adapter,
      bulkMaxRecords: 10,
      bulkMaxBytes: 20_000,
    });
    await backend.init();
  });

  it('defaults the spatial mode per engine', () => {
    expect(backend.spatial).to.equal('shape');
    expect(new EngineBackend({ engine: 'elasticsearch', adapter }).spatial).to.equal('envelope');
    expect(backend.ingestLog).to.equal('cairn-ingest-log');
  });

  it('batches writes by record count and by bytes, keyed by record id', async () => {
    const batch = records(25);
    const result = await backend.upsert(batch);
    expect(result).to.deep.equal({ written: 25, failures: [] });
    // The records written lose any tombstone they had.
    const tombstoneCalls = adapter.bulkCalls.filter(isTombstoneCall);
    expect(tombstoneCalls.flat().map((line) => (line.delete as { _id: string })._id)).to.deep.equal(
      batch.map((record) => record.id),
    );
    adapter.bulkCalls = adapter.bulkCalls.filter((lines) => !isTombstoneCall(lines));
    const sizes = adapter.bulkCalls.map((lines) => lines.length / 2);
    expect(sizes.reduce((a, b) => a + b)).to.equal(25);
    expect(Math.max(...sizes)).to.be.at.most(10);
    for (const lines of adapter.bulkCalls) {
      expect(Buffer.byteLength(JSON.stringify(lines.filter((_, i) => i % 2 === 1)))).to.be.below(
        20_000 + 4_000,
      );
    }
    const action = defined(adapter.bulkCalls[0], 'a bulk call')[0] as {
      index: { _id: string; _index: string };
    };
    expect(action.index._index).to.equal('cairn-records');
    expect(action.index._id).to.equal((adapter.bulkCalls[0]?.[1] as { id: string }).id);
  });

  it('reports per-record failures with a reason and no engine message', async () => {
    adapter.bulkAnswer = (lines) =>
      lines
        .filter((line) => 'index' in line)
        .map((line, i) => ({
          id: (line.index as { _id: string })._id,
          status: i === 1 ? 400 : 201,
          ...(i === 1 && {
            error: {
              type: 'mapper_parsing_exception',
              reason:
                "failed to parse field [props.proj%2Eepsg] of type [double] in document with id 'x'",
            },
          }),
        }));
    const batch = records(3);
    const result = await backend.upsert(batch);
    expect(result.written).to.equal(2);
    expect(result.failures).to.deep.equal([
      {
        id: defined(batch[1], 'the second record').id,
        reason: 'rejected by the search engine (mapper_parsing_exception at "proj.epsg")',
      },
    ]);
    expect(describeBulkFailure({ type: 'x' })).to.equal('rejected by the search engine (x)');
  });

  it('retries operations refused for transient reasons, then gives up with a 503', async () => {
    adapter.bulkAnswer = (lines, call) =>
      lines
        .filter((line) => 'index' in line)
        .map((line) => ({
          id: (line.index as { _id: string })._id,
          status: call === 1 ? 429 : 201,
          ...(call === 1 && { error: { type: 'es_rejected_execution_exception' } }),
        }));
    expect(await backend.upsert(records(2))).to.deep.equal({ written: 2, failures: [] });
    expect(adapter.bulkCalls.filter((lines) => !isTombstoneCall(lines))).to.have.length(2);

    adapter.bulkCalls = [];
    adapter.bulkAnswer = (lines) =>
      lines
        .filter((line) => 'index' in line)
        .map((line) => ({
          id: (line.index as { _id: string })._id,
          status: 403,
          error: { type: 'cluster_block_exception' },
        }));
    const error = await backend.upsert(records(1)).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(ServiceUnavailableError);
  }).timeout(20_000);

  it('turns an unreachable engine into a 503 with Retry-After and no address', async () => {
    adapter.failWith = connectionError;
    for (const call of [
      () => backend.search({ sort: [], offset: 0, limit: 1 }),
      () => backend.get('x'),
      () => backend.upsert(records(1)),
      () => backend.init(),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).retryAfter).to.equal(5);
      expect((error as Error).message).not.to.contain('10.0.0.1');
    }
    expect(await backend.health()).to.deep.equal({
      ok: false,
      kind: 'opensearch',
      detail: 'search engine unavailable',
    });
  });

  it('turns an engine refusal into a generic 400 (filter or query)', async () => {
    adapter.failWith = badRequest;
    const plain = await backend
      .search({ sort: [], offset: 0, limit: 1 })
      .catch((caught: unknown) => caught);
    expect(plain).to.be.instanceOf(InvalidParameterError);
    expect((plain as Error).message).to.equal('The search engine could not evaluate this query');
    const filtered = await backend
      .search({ sort: [], offset: 0, limit: 1, filter: checkFilter(parseCql2Text("type = 'x'")) })
      .catch((caught: unknown) => caught);
    expect(filtered).to.be.instanceOf(FilterError);
    expect((filtered as Error).message).not.to.contain('query_shard_exception');
    const failed = toReadError(
      Object.assign(new Error('boom'), { name: 'ResponseError', statusCode: 500 }),
    );
    expect(failed).to.be.instanceOf(InternalError);
    expect(failed.expose).to.equal(false);
  });

  it('pages within the window with from/size, beyond it with search_after from checkpoints', async () => {
    const hit = (n: number) => ({
      _id: `r${n}`,
      sort: [`r${n}`],
      _source: { record: {}, source: {} },
    });
    adapter.searchAnswer = (request) => {
      const body = request.body as { from?: number; size: number; search_after?: string[] };
      const start = body.search_after
        ? Number(body.search_after[0]?.slice(1)) + 1
        : (body.from ?? 0);
      const hits = Array.from({ length: body.size }, (_, i) => hit(start + i)).filter(
        (h) => Number(h._id.slice(1)) < 30_000,
      );
      return { hits: { total: { value: 30_000, relation: 'eq' }, hits } };
    };
    // A sort other than the index order (id ascending, which pages by ranges on id and jumps by
    // sampled ranks: integration tests); the fake engine ignores the direction.
    const sort: SearchQuery['sort'] = [{ field: 'id', direction: 'desc' }];
    await backend.search({ sort, offset: 9_990, limit: 10 });
    expect(adapter.searches.at(-1)?.body).to.deep.include({ from: 9_990, size: 10 });
    // The next page starts exactly where the window page ended: no walk.
    await backend.search({ sort, offset: 10_000, limit: 10 });
    expect(adapter.searches.at(-1)?.body).to.deep.include({ search_after: ['r9999'], size: 10 });
    expect(backend.pagingStats).to.deep.include({ hits: 1, walks: 0 });
    // A jump walks from the nearest checkpoint in strides of sort values only: no source, no
    // stored fields, no hit count, no point in time (which would add a tiebreaker to the sort).
    adapter.searches = [];
    await backend.search({ sort, offset: 25_000, limit: 10 });
    expect(backend.pagingStats.walks).to.equal(1);
    const walk = adapter.searches.filter(
      (search) => (search.body as { stored_fields?: string }).stored_fields === '_none_',
    );
    expect(walk.map((search) => (search.body as { size: number }).size)).to.deep.equal([
      10_000, 4_990,
    ]);
    for (const search of walk) {
      expect(search.index).to.equal('cairn-records');
      expect(search.body).to.deep.include({ track_total_hits: false });
      expect(search.body).not.to.have.any.keys('pit', '_source', 'aggs', 'from');
      expect(search.filterPath).to.deep.equal(['hits.hits.sort']);
    }
    expect(walk.map((search) => search.body.search_after)).to.deep.equal([['r10009'], ['r20009']]);
    expect(adapter.searches.at(-1)?.body).to.deep.include({ search_after: ['r24999'] });
  });

  it('refuses pages larger than the result window', async () => {
    const error = await backend
      .search({ sort: [], offset: 0, limit: 10_001 })
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(InvalidParameterError);
  });

  it('keeps checkpoints in a bounded LRU', () => {
    const checkpoints = new SortCheckpoints(2, 2);
    checkpoints.set('a', 10, ['x']);
    checkpoints.set('a', 20, ['y']);
    checkpoints.set('a', 30, ['z']);
    expect(checkpoints.get('a', 10)).to.equal(undefined);
    expect(checkpoints.nearestBelow('a', 25)).to.deep.equal({ offset: 20, after: ['y'] });
    checkpoints.set('b', 1, ['b']);
    checkpoints.set('c', 1, ['c']);
    expect(checkpoints.get('a', 20)).to.equal(undefined);
    expect(checkpoints.get('c', 1)).to.deep.equal(['c']);
  });

  it('classifies client errors by name and status', () => {
    expect(classifyClientError(connectionError).kind).to.equal('unavailable');
    expect(classifyClientError(badRequest)).to.include({ kind: 'rejected', status: 400 });
    expect(
      classifyClientError(Object.assign(new Error(), { statusCode: 503, name: 'ResponseError' }))
        .kind,
    ).to.equal('unavailable');
    expect(classifyClientError(new EngineError('failed', 500, 'x', null)).kind).to.equal('failed');
  });

  it('answers a search the engine cancelled itself (backpressure, cancel interval) as unavailable', () => {
    const engine500 = (error: unknown) =>
      Object.assign(new Error(), {
        name: 'ResponseError',
        meta: { statusCode: 500, body: { error, status: 500 } },
      });
    const cancelled = classifyClientError(
      engine500({
        type: 'search_phase_execution_exception',
        root_cause: [{ type: 'task_cancelled_exception' }],
      }),
    );
    expect(cancelled).to.include({ kind: 'unavailable', status: 500 });
    expect(
      classifyClientError(
        engine500({
          type: 'search_phase_execution_exception',
          root_cause: [],
          caused_by: { type: 'task_cancelled_exception' },
        }),
      ).kind,
    ).to.equal('unavailable');
    expect(
      classifyClientError(
        engine500({ type: 'search_phase_execution_exception', root_cause: [{ type: 'x' }] }),
      ).kind,
    ).to.equal('failed');
  });
});
