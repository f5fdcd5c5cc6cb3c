/**
 * The single-document source: one metadata document (a record, a collection, NDJSON or XML)
 * fetched by URL. Always harvested whole; records gone from it are removed like any source's.
 */
import type { ResolvedSource } from '../harvest-source.js';
import type { SourceClient } from '../source-client.js';
import type { HarvestedDocument, SourceAdapter } from './source-adapter.js';

export class DocumentAdapter implements SourceAdapter {
  constructor(
    private readonly source: ResolvedSource,
    private readonly client: SourceClient,
  ) {}

  async *pages(): AsyncIterable<HarvestedDocument[]> {
    const response = await this.client.request(this.source.url);
    yield [{ name: this.source.url, content: response.text, format: this.source.format }];
  }
}
