/**
 * The OpenSearch description document of the catalogue, with an example query that finds
 * records: served at /catalogue/opensearch and as CSW `GetCapabilities&mode=opensearch`.
 */
import type { ServiceMetadata } from '../../../../shared/config/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import type { EncodedResponse } from '../../common/responses.js';
import { cswUrl, openSearchDescriptionUrl } from '../../common/urls.js';
import { OPENSEARCH_DESCRIPTION_TYPE, presentOpenSearchDescription } from './capabilities.js';

/** Writes the OpenSearch description document; its example terms are a keyword in use. */
export async function describeOpenSearch(
  backend: SearchBackend,
  service: ServiceMetadata,
  baseUrl: string,
): Promise<EncodedResponse> {
  const [keyword] = await backend.domain('keywords', { limit: 1 });
  const body = presentOpenSearchDescription({
    service,
    cswEndpoint: cswUrl(baseUrl),
    selfUrl: openSearchDescriptionUrl(baseUrl),
    exampleTerms: keyword?.value ?? 'metadata',
  });
  return { status: 200, mediaType: OPENSEARCH_DESCRIPTION_TYPE, body };
}
