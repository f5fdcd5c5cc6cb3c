/**
 * The whole CQL2 suite (cql2/suite.ts) on Elasticsearch (spatial mode envelope: its test
 * distribution has no geo_shape) and OpenSearch (modes shape and envelope). Every case must give
 * exactly the features SQLite gives (the independent predicate SQLite is held to), text and
 * JSON, with no refusal: what the engine cannot decide alone (comparing two properties,
 * arithmetic on properties, S_TOUCHES / S_CROSSES / S_OVERLAPS, DWithin / Beyond, relations it
 * cannot prove in envelope mode or at its coordinate precision) is narrowed on the engine and
 * decided in Node (shared/search/engine/refine-search.ts). Needs CAIRN_TEST_ELASTICSEARCH_URL
 * and CAIRN_TEST_OPENSEARCH_URL.
 */
import type { EngineName } from '../../shared/search/engine/engine-adapter.js';
import type { SpatialMode } from '../../shared/search/engine/index-templates.js';
import { describeCql2Suite } from './cql2/suite.js';
import { createTestBackend, requireEngineUrl, requireGeoShape } from './engine-backend-cases.js';

const NAMES: Record<EngineName, string> = {
  elasticsearch: 'Elasticsearch',
  opensearch: 'OpenSearch',
};

function describeEngine(engine: EngineName, spatial: SpatialMode): void {
  const url = requireEngineUrl(engine);
  if (!url) return;
  describe(`${engine} (${spatial})`, () => {
    if (spatial === 'shape') {
      before(async function () {
        this.timeout(30_000);
        await requireGeoShape(engine, url);
      });
    }
    describeCql2Suite(`${NAMES[engine]} (${spatial})`, {
      open: () => createTestBackend(engine, url, { spatial }),
      backendName: NAMES[engine],
    });
  });
}

describeEngine('elasticsearch', 'envelope');
describeEngine('opensearch', 'shape');
describeEngine('opensearch', 'envelope');
