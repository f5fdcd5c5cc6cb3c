/**
 * The EngineAdapter calls that are the same on the Elasticsearch and the OpenSearch client
 * (same method, same parameters, a 404 ignored where the target may already be gone), written
 * once for both adapters; and the reads, which both send over node:http (engine-reads.ts).
 */
import {
  callEngine,
  type EngineCallLimits,
  type EngineSearchRequest,
  type EngineTextSearchRequest,
  type EngineSearchResponse,
  type JsonObject,
} from './engine-adapter.js';
import { EngineReads } from './engine-reads.js';

/** How long a merge to one segment may take before the call gives up (the merge goes on). */
const MERGE_TIMEOUT_MS = 60 * 60 * 1000;

/** A missing template or index is what a delete wants: not an error. */
const IGNORE_MISSING = { ignore: [404] };

/** What both clients offer under the same names and parameters. */
export interface CommonEngineClient {
  indices: {
    deleteIndexTemplate(params: { name: string }, options: { ignore: number[] }): Promise<unknown>;
    delete(params: { index: string }, options: { ignore: number[] }): Promise<unknown>;
    refresh(params: { index: string }): Promise<unknown>;
    forcemerge(
      params: { index: string; max_num_segments: number },
      options: { requestTimeout: number },
    ): Promise<unknown>;
  };
  cluster: {
    deleteComponentTemplate(
      params: { name: string },
      options: { ignore: number[] },
    ): Promise<unknown>;
  };
  close(): Promise<void>;
}

/** The indexes an alias points at, from a get-alias answer (`{index: {aliases: {…}}}`). */
export function aliasedIndices(alias: string, answer: unknown): string[] {
  const indices = (answer ?? {}) as Record<string, { aliases?: JsonObject } | undefined>;
  return Object.keys(indices).filter((index) => indices[index]?.aliases?.[alias] !== undefined);
}

/** Where and how patiently both the client and the reads reach the engine. */
export interface ClientConnectionOptions {
  url: string;
  /** Milliseconds before a request is abandoned. */
  requestTimeout?: number | undefined;
  /** Retries on connection errors and 502/503/504. */
  maxRetries?: number | undefined;
}

/**
 * The base of both adapters: the calls their clients make alike, and search, count and get by
 * id, which go over node:http rather than through either client's transport.
 */
export abstract class CommonEngineCalls {
  private readonly reads: EngineReads;

  constructor(
    private readonly common: CommonEngineClient,
    connection: {
      url: string;
      requestTimeout: number;
      maxRetries: number;
      cancelAfterTimeInterval?: boolean;
    },
  ) {
    this.reads = new EngineReads(connection);
  }

  search({
    index,
    body,
    filterPath,
    ...limits
  }: EngineSearchRequest): Promise<EngineSearchResponse> {
    return callEngine(
      async () =>
        (await this.reads.search(index, body, filterPath, limits)) as EngineSearchResponse,
    );
  }

  searchText({ index, body, ...limits }: EngineTextSearchRequest): Promise<string> {
    return callEngine(() => this.reads.searchText(index, body, limits));
  }

  searchMany(
    index: string,
    bodies: readonly JsonObject[],
    limits?: EngineCallLimits,
  ): Promise<EngineSearchResponse[]> {
    return callEngine(
      async () => (await this.reads.msearch(index, bodies, limits)) as EngineSearchResponse[],
    );
  }

  count(index: string, query?: JsonObject, limits?: EngineCallLimits): Promise<number> {
    return callEngine(() => this.reads.count(index, query, limits));
  }

  getSource(index: string, id: string, includes: string[]): Promise<JsonObject | null> {
    return callEngine(() => this.reads.getSource(index, id, includes));
  }

  deleteIndexTemplate(name: string): Promise<void> {
    return callEngine(async () => {
      await this.common.indices.deleteIndexTemplate({ name }, IGNORE_MISSING);
    });
  }

  deleteComponentTemplate(name: string): Promise<void> {
    return callEngine(async () => {
      await this.common.cluster.deleteComponentTemplate({ name }, IGNORE_MISSING);
    });
  }

  deleteIndex(index: string): Promise<void> {
    return callEngine(async () => {
      await this.common.indices.delete({ index }, IGNORE_MISSING);
    });
  }

  refresh(index: string): Promise<void> {
    return callEngine(async () => {
      await this.common.indices.refresh({ index });
    });
  }

  mergeSegments(index: string): Promise<void> {
    return callEngine(async () => {
      // The engine answers when the merge is done: minutes for millions of records.
      await this.common.indices.forcemerge(
        { index, max_num_segments: 1 },
        { requestTimeout: MERGE_TIMEOUT_MS },
      );
      // OpenSearch keeps searching the merged-away segments until the next refresh.
      await this.common.indices.refresh({ index });
    });
  }

  close(): Promise<void> {
    this.reads.close();
    return this.common.close();
  }
}
