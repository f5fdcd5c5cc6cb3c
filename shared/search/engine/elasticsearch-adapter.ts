/**
 * EngineAdapter over the official Elasticsearch client (@elastic/elasticsearch 8.x). Request
 * bodies are the engine-agnostic JSON the DSL compiler builds; this file only maps them onto
 * the client's calls and reads the answers.
 */
import {
  Client,
  SniffingTransport,
  type estypes,
  type TransportOptions,
} from '@elastic/elasticsearch';
import {
  callEngine,
  BULK_RESPONSE_FILTER,
  readBulkItems,
  type AliasAction,
  type BulkItemResult,
  type EngineAdapter,
  type JsonObject,
  type RefreshPolicy,
} from './engine-adapter.js';
import {
  aliasedIndices,
  CommonEngineCalls,
  type ClientConnectionOptions,
} from './common-engine-calls.js';

export type { ClientConnectionOptions } from './common-engine-calls.js';

/** Casts engine-agnostic JSON to the client's request types (the DSL compiler owns the shape). */
const as = <T>(value: unknown): T => value as T;

/** The wait before a request's retry (attempt 1, 2 …), in seconds: 50 ms, doubling. */
export function retryBackoffSeconds(attempt: number): number {
  return 0.05 * 2 ** (attempt - 1);
}

/**
 * The client's own transport with short waits between retries. Its default backoff waits 1-2 s
 * and then 2-4 s, so with the engine down every query took 3 to 6 s to reach its 503, holding a
 * discovery client's connection all that time. The retries stay, for the one-off failures they
 * are for (a kept-alive socket the engine closed); an outage now answers within a few hundred
 * milliseconds. The worker waits out longer outages by itself (services/worker).
 */
class PromptRetryTransport extends SniffingTransport {
  constructor(options: TransportOptions) {
    super({
      ...options,
      retryBackoff: (_min, _max, attempt) => retryBackoffSeconds(attempt),
    });
  }
}

/** Elasticsearch 8 through @elastic/elasticsearch. */
export class ElasticsearchAdapter extends CommonEngineCalls implements EngineAdapter {
  readonly engine = 'elasticsearch' as const;
  private readonly client: Client;

  constructor(options: ClientConnectionOptions) {
    const requestTimeout = options.requestTimeout ?? 30_000;
    const maxRetries = options.maxRetries ?? 2;
    const client = new Client({
      node: options.url,
      requestTimeout,
      maxRetries,
      Transport: PromptRetryTransport,
    });
    super(client, { url: options.url, requestTimeout, maxRetries });
    this.client = client;
  }

  bulk(body: Buffer, refresh: RefreshPolicy): Promise<BulkItemResult[]> {
    return callEngine(async () => {
      const response = await this.client.bulk({
        // The client sends a buffer as it is; its types only name arrays of operations.
        operations: body as unknown as estypes.BulkRequest['operations'],
        refresh,
        filter_path: BULK_RESPONSE_FILTER,
      });
      return readBulkItems(response.items);
    });
  }

  indexDocument(
    index: string,
    id: string,
    document: JsonObject,
    refresh: RefreshPolicy,
  ): Promise<void> {
    return callEngine(async () => {
      await this.client.index({ index, id, document, refresh });
    });
  }

  openPointInTime(index: string, keepAlive: string): Promise<string> {
    return callEngine(async () => {
      const response = await this.client.openPointInTime({ index, keep_alive: keepAlive });
      return response.id;
    });
  }

  closePointInTime(id: string): Promise<void> {
    return callEngine(async () => {
      await this.client.closePointInTime({ id }, { ignore: [404] });
    });
  }

  putComponentTemplate(name: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.cluster.putComponentTemplate(
        as<estypes.ClusterPutComponentTemplateRequest>({ name, ...body }),
      );
    });
  }

  putIndexTemplate(name: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putIndexTemplate(
        as<estypes.IndicesPutIndexTemplateRequest>({ name, ...body }),
      );
    });
  }

  indexExists(index: string): Promise<boolean> {
    return callEngine(() => this.client.indices.exists({ index }));
  }

  createIndex(index: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.create(as<estypes.IndicesCreateRequest>({ index, ...body }));
    });
  }

  aliasTargets(alias: string): Promise<string[]> {
    return callEngine(async () => {
      const response = await this.client.indices.getAlias({ name: alias }, { ignore: [404] });
      return aliasedIndices(alias, response);
    });
  }

  updateAliases(actions: AliasAction[]): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.updateAliases({ actions });
    });
  }

  getMappings(index: string): Promise<Record<string, JsonObject>> {
    return callEngine(async () => {
      const response = await this.client.indices.getMapping({ index });
      return Object.fromEntries(
        Object.entries(response).map(([name, value]) => [name, as<JsonObject>(value.mappings)]),
      );
    });
  }

  putMapping(index: string, properties: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putMapping({ index, properties: properties as never });
    });
  }

  putSettings(index: string, settings: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putSettings({ index, settings });
    });
  }

  clusterHealth(): Promise<{ status: string }> {
    return callEngine(async () => {
      const response = await this.client.cluster.health();
      return { status: response.status };
    });
  }
}
