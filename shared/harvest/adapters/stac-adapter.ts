/**
 * Harvesting a STAC API: item search paged by `next` links (GET query strings, or POST bodies
 * with STAC's `method`/`body`/`merge` link members); changes since a date through a CQL2 filter
 * on `updated` (STAC Filter extension); items by id through the search's `ids`.
 */
import type { ResolvedSource } from '../harvest-source.js';
import type { SourceClient } from '../source-client.js';
import {
  featureId,
  featuresOf,
  matchedOf,
  nextLinkOf,
  type JsonObject,
  type NextLink,
} from './json-paging.js';
import { updatedSinceCql2 } from './records-adapter.js';
import {
  checkComplete,
  chunk,
  PageGuard,
  withQuery,
  IncrementalSourceAdapter,
  type HarvestedDocument,
} from './source-adapter.js';

interface SearchRequest {
  url: string;
  method: 'GET' | 'POST';
  body?: JsonObject | undefined;
}

export class StacAdapter extends IncrementalSourceAdapter {
  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
  ) {
    super();
  }

  /** The first search request, by the source's method. */
  private firstRequest(options: { modifiedSince?: string; ids?: string[] }): SearchRequest {
    const { source } = this;
    const limit = options.ids ? options.ids.length : source.pageSize;
    if (source.method === 'POST') {
      const body: JsonObject = { limit };
      if (source.collections) body.collections = source.collections;
      if (options.ids) body.ids = options.ids;
      if (options.modifiedSince) {
        body['filter-lang'] = 'cql2-json';
        body.filter = {
          op: '>=',
          args: [{ property: 'updated' }, { timestamp: options.modifiedSince }],
        };
      }
      return { url: source.url, method: 'POST', body };
    }
    return {
      url: withQuery(source.url, {
        limit: String(limit),
        collections: source.collections?.join(','),
        ids: options.ids?.join(','),
        filter: options.modifiedSince ? updatedSinceCql2(options.modifiedSince) : undefined,
        'filter-lang': options.modifiedSince ? 'cql2-text' : undefined,
      }),
      method: 'GET',
    };
  }

  private async *walk(
    options: { modifiedSince?: string; ids?: string[] } = {},
  ): AsyncIterable<JsonObject[]> {
    const guard = new PageGuard(this.source.url);
    let request: SearchRequest | undefined = this.firstRequest(options);
    let seen = 0;
    let matched: number | undefined;
    while (request !== undefined) {
      guard.next(`${request.method} ${request.url} ${JSON.stringify(request.body ?? null)}`);
      const page: JsonObject =
        request.method === 'POST'
          ? await this.client.json(request.url, {
              method: 'POST',
              body: JSON.stringify(request.body ?? {}),
              contentType: 'application/json',
            })
          : await this.client.json(request.url);
      const features = featuresOf(request.url, page);
      matched ??= matchedOf(page);
      seen += features.length;
      yield features;
      const next: NextLink | undefined =
        features.length === 0 ? undefined : nextLinkOf(request.url, page);
      request =
        next === undefined
          ? undefined
          : {
              url: next.href,
              method: next.method,
              body:
                next.method === 'POST'
                  ? next.merge
                    ? { ...(request.body ?? {}), ...(next.body ?? {}) }
                    : (next.body ?? request.body)
                  : undefined,
            };
    }
    if (!options.ids) checkComplete(this.source.url, seen, matched);
  }

  async *pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]> {
    for await (const features of this.walk(options)) yield this.documents(features);
  }

  private documents(features: JsonObject[]): HarvestedDocument[] {
    return features.map((feature) => ({
      name: `${this.source.url} item ${featureId(this.source.url, feature)}`,
      content: JSON.stringify(feature),
      format: 'stac-item' as const,
    }));
  }

  protected async *identifiers(): AsyncIterable<string[]> {
    for await (const features of this.walk())
      yield features.map((feature) => featureId(this.source.url, feature));
  }

  protected async *fetchByIds(ids: string[]): AsyncIterable<HarvestedDocument[]> {
    for (const group of chunk(ids, this.source.pageSize))
      for await (const features of this.walk({ ids: group })) yield this.documents(features);
  }
}
