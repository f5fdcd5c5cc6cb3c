/**
 * The EngineAdapter calls that are the same on the Elasticsearch and the OpenSearch client
 * (same method, same parameters, a 404 ignored where the target may already be gone), written
 * once for both adapters.
 */
import { callEngine, type JsonObject } from './engine-adapter.js';

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

/** The base of both adapters: the calls their clients make alike. */
export abstract class CommonEngineCalls {
  constructor(private readonly common: CommonEngineClient) {}

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
    return this.common.close();
  }
}
