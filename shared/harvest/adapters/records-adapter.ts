/**
 * Harvesting an OGC API – Records collection: its items URL paged by `next` links; changes
 * since a date through a CQL2 filter on `updated` (Records Part 3); records by id from
 * `…/items/{id}`.
 */
import type { ResolvedSource } from '../harvest-source.js';
import { HarvestSourceError, type SourceClient } from '../source-client.js';
import { featureId, featuresOf, matchedOf, nextLinkOf, type JsonObject } from './json-paging.js';
import {
  checkComplete,
  PageGuard,
  withQuery,
  IncrementalSourceAdapter,
  type HarvestedDocument,
} from './source-adapter.js';

/** CQL2 text for "updated on or after". */
export function updatedSinceCql2(since: string): string {
  return `updated >= TIMESTAMP('${since}')`;
}

export class RecordsAdapter extends IncrementalSourceAdapter {
  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
  ) {
    super();
  }

  private async *walk(modifiedSince?: string): AsyncIterable<JsonObject[]> {
    const first = withQuery(this.source.url, {
      limit: String(this.source.pageSize),
      filter: modifiedSince ? updatedSinceCql2(modifiedSince) : undefined,
      'filter-lang': modifiedSince ? 'cql2-text' : undefined,
    });
    const guard = new PageGuard(this.source.url);
    let url: string | undefined = first;
    let seen = 0;
    let matched: number | undefined;
    while (url !== undefined) {
      guard.next(url);
      const page = await this.client.json(url);
      const features = featuresOf(url, page);
      matched ??= matchedOf(page);
      seen += features.length;
      yield features;
      url = features.length === 0 ? undefined : nextLinkOf(url, page)?.href;
    }
    checkComplete(this.source.url, seen, matched);
  }

  async *pages(options: { modifiedSince?: string }): AsyncIterable<HarvestedDocument[]> {
    for await (const features of this.walk(options.modifiedSince)) {
      yield features.map((feature) => ({
        name: `${this.source.url} item ${featureId(this.source.url, feature)}`,
        content: JSON.stringify(feature),
      }));
    }
  }

  protected async *identifiers(): AsyncIterable<string[]> {
    for await (const features of this.walk())
      yield features.map((feature) => featureId(this.source.url, feature));
  }

  protected async *fetchByIds(ids: string[]): AsyncIterable<HarvestedDocument[]> {
    const items = new URL(this.source.url);
    items.search = '';
    for (const id of ids) {
      const url = `${items.href.replace(/\/+$/, '')}/${encodeURIComponent(id)}`;
      try {
        const feature = await this.client.json(url);
        yield [{ name: `${this.source.url} item ${id}`, content: JSON.stringify(feature) }];
      } catch (error) {
        if (error instanceof HarvestSourceError && error.sourceStatus === 404) continue;
        throw error;
      }
    }
  }
}
