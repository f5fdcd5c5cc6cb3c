/**
 * The backend contract and the engine-specific cases on OpenSearch 2, in both spatial modes:
 * `shape` (the default; needs geo_shape, i.e. the geo module) and `envelope`. Needs
 * CAIRN_TEST_OPENSEARCH_URL.
 */
import { describeBackendContract } from './backend-contract.js';
import { describeChangeFeedContract } from './change-feed-contract.js';
import { describeIdWalkContract } from './id-walk-contract.js';
import {
  createTestBackend,
  describeEngineCases,
  requireEngineUrl,
  requireGeoShape,
} from './engine-backend-cases.js';

const url = requireEngineUrl('opensearch');

if (url) {
  describe('opensearch, spatial mode shape', () => {
    before(async function () {
      this.timeout(30_000);
      await requireGeoShape('opensearch', url);
    });
    describeBackendContract('opensearch (shape)', () =>
      createTestBackend('opensearch', url, { spatial: 'shape' }),
    );
    describeEngineCases('opensearch', url, 'shape');
  });

  describe('opensearch, spatial mode envelope', () => {
    describeBackendContract('opensearch (envelope)', () =>
      createTestBackend('opensearch', url, { spatial: 'envelope' }),
    );
    describeEngineCases('opensearch', url, 'envelope');
    describeChangeFeedContract(
      'opensearch',
      () => createTestBackend('opensearch', url, { spatial: 'envelope' }),
      { reindexes: true },
    );
    // A result window of 8: a walk takes several searches and passes over records in hops.
    describeIdWalkContract('opensearch, result window 8', () =>
      createTestBackend('opensearch', url, { spatial: 'envelope', maxResultWindow: 8 }),
    );
  });
}
