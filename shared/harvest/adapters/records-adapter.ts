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

/**
 * The same condition with the instant as a string literal: pycsw 3.0 reads a GET `filter` as
 * ECQL (pygeofilter 0.2), which has no TIMESTAMP() and answers it with a 400, but compares
 * `updated` (its insert date, an ISO 8601 string) with a string.
 */
export function updatedSinceText(since: string): string {
  return `updated >= '${since}'`;
}

export class RecordsAdapter extends IncrementalSourceAdapter {
  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
  ) {
    super();
  }

  /**
   * The first page, with the modification-date filter when there is one: CQL2's TIMESTAMP()
   * first, and, when the source answers that with a 400, the string comparison.
   */
  private async firstPage(
    guard: PageGuard,
    modifiedSince?: string,
  ): Promise<{ url: string; page: JsonObject }> {
    const filters =
      modifiedSince === undefined
        ? [undefined]
        : [updatedSinceCql2(modifiedSince), updatedSinceText(modifiedSince)];
    for (const [index, filter] of filters.entries()) {
      const url = withQuery(this.source.url, {
        limit: String(this.source.pageSize),
        filter,
        'filter-lang': filter === undefined ? undefined : 'cql2-text',
      });
      guard.next(url);
      try {
        return { url, page: await this.client.json(url) };
      } catch (error) {
        const refused = error instanceof HarvestSourceError && error.sourceStatus === 400;
        if (!refused || index === filters.length - 1) throw error;
      }
    }
    throw new Error('firstPage: no filter tried');
  }

  private async *walk(modifiedSince?: string): AsyncIterable<JsonObject[]> {
    const guard = new PageGuard(this.source.url);
    let { url, page } = await this.firstPage(guard, modifiedSince);
    let seen = 0;
    let matched: number | undefined;
    for (;;) {
      const features = featuresOf(url, page);
      matched ??= matchedOf(page);
      seen += features.length;
      yield features;
      const next = features.length === 0 ? undefined : nextLinkOf(url, page)?.href;
      if (next === undefined) break;
      guard.next(next);
      url = next;
      page = await this.client.json(url);
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
