/** One source adapter per protocol. */
import type { ResolvedSource } from '../harvest-source.js';
import type { SourceClient } from '../source-client.js';
import { CswAdapter } from './csw-adapter.js';
import { DocumentAdapter } from './document-adapter.js';
import { OaiPmhAdapter } from './oai-pmh-adapter.js';
import { RecordsAdapter } from './records-adapter.js';
import type { SourceAdapter } from './source-adapter.js';
import { StacAdapter } from './stac-adapter.js';

export type { HarvestedDocument, SourceAdapter } from './source-adapter.js';

/** The adapter for a source's protocol. */
export function createSourceAdapter(
  source: ResolvedSource,
  client: SourceClient,
  limits: { maxBytes: number },
): SourceAdapter {
  switch (source.protocol) {
    case 'csw':
      return new CswAdapter(source, client, limits.maxBytes);
    case 'records':
      return new RecordsAdapter(source, client);
    case 'stac':
      return new StacAdapter(source, client);
    case 'document':
      return new DocumentAdapter(source, client);
    case 'oai-pmh':
      return new OaiPmhAdapter(source, client, limits.maxBytes);
  }
}
