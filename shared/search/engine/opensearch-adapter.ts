/**
 * EngineAdapter over the OpenSearch client (@opensearch-project/opensearch 2.x). Request
 * bodies are the engine-agnostic JSON the DSL compiler builds; this file only maps them onto
 * the client's calls (which take a `body` and answer `{ body }`) and reads the answers.
 */
import { Client } from '@opensearch-project/opensearch';
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

/** OpenSearch 2 through @opensearch-project/opensearch. */
export class OpenSearchAdapter extends CommonEngineCalls implements EngineAdapter {
  readonly engine = 'opensearch' as const;
  private readonly client: Client;

  constructor(options: ClientConnectionOptions) {
    const requestTimeout = options.requestTimeout ?? 30_000;
    const maxRetries = options.maxRetries ?? 2;
    const client = new Client({ node: options.url, requestTimeout, maxRetries });
    super(client, { url: options.url, requestTimeout, maxRetries, cancelAfterTimeInterval: true });
    this.client = client;
  }

  bulk(body: Buffer, refresh: RefreshPolicy): Promise<BulkItemResult[]> {
    return callEngine(async () => {
      const response = await this.client.bulk({
        // The client sends a buffer as it is; its types do not say so.
        body: body as unknown as JsonObject[],
        refresh,
        filter_path: BULK_RESPONSE_FILTER,
      });
      return readBulkItems((response.body as { items: unknown }).items);
    });
  }

  indexDocument(
    index: string,
    id: string,
    document: JsonObject,
    refresh: RefreshPolicy,
  ): Promise<void> {
    return callEngine(async () => {
      await this.client.index({
        index,
        id,
        body: document,
        refresh,
      });
    });
  }

  openPointInTime(index: string, keepAlive: string): Promise<string> {
    return callEngine(async () => {
      const response = await this.client.createPit({ index, keep_alive: keepAlive });
      return (response.body as { pit_id: string }).pit_id;
    });
  }

  closePointInTime(id: string): Promise<void> {
    return callEngine(async () => {
      await this.client.deletePit({ body: { pit_id: [id] } }, { ignore: [404] });
    });
  }

  putComponentTemplate(name: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.cluster.putComponentTemplate({ name, body });
    });
  }

  putIndexTemplate(name: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putIndexTemplate({ name, body });
    });
  }

  indexExists(index: string): Promise<boolean> {
    return callEngine(async () => {
      const response = await this.client.indices.exists({ index });
      return response.body === true;
    });
  }

  createIndex(index: string, body: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.create({ index, body });
    });
  }

  aliasTargets(alias: string): Promise<string[]> {
    return callEngine(async () => {
      const response = await this.client.indices.getAlias({ name: alias }, { ignore: [404] });
      return aliasedIndices(alias, response.body);
    });
  }

  updateAliases(actions: AliasAction[]): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.updateAliases({ body: { actions } });
    });
  }

  getMappings(index: string): Promise<Record<string, JsonObject>> {
    return callEngine(async () => {
      const response = await this.client.indices.getMapping({ index });
      const body = response.body as Record<string, { mappings: JsonObject }>;
      return Object.fromEntries(
        Object.entries(body).map(([name, value]) => [name, value.mappings]),
      );
    });
  }

  putMapping(index: string, properties: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putMapping({ index, body: { properties } });
    });
  }

  putSettings(index: string, settings: JsonObject): Promise<void> {
    return callEngine(async () => {
      await this.client.indices.putSettings({ index, body: settings });
    });
  }

  clusterHealth(): Promise<{ status: string }> {
    return callEngine(async () => {
      const response = await this.client.cluster.health();
      return { status: (response.body as { status: string }).status };
    });
  }
}
