/**
 * The backend contract and the engine-specific cases on Elasticsearch 8, in spatial mode
 * `envelope` (the integ-test-zip distribution has no geo_shape). Needs CAIRN_TEST_ELASTICSEARCH_URL.
 */
import { describeBackendContract } from './backend-contract.js';
import { describeChangeFeedContract } from './change-feed-contract.js';
import { describeIdWalkContract } from './id-walk-contract.js';
import {
  createTestBackend,
  describeEngineCases,
  requireEngineUrl,
} from './engine-backend-cases.js';

const url = requireEngineUrl('elasticsearch');

if (url) {
  describeBackendContract('elasticsearch (envelope)', () =>
    createTestBackend('elasticsearch', url, { spatial: 'envelope' }),
  );
  describeEngineCases('elasticsearch', url, 'envelope');
  describeChangeFeedContract(
    'elasticsearch',
    () => createTestBackend('elasticsearch', url, { spatial: 'envelope' }),
    { reindexes: true },
  );
  // Windows of change times of 1 and 2 ms: pages after a checkpoint widen their window and
  // fall back to the open search.
  describeChangeFeedContract('elasticsearch, change windows of 1 and 2 ms', () =>
    createTestBackend('elasticsearch', url, { spatial: 'envelope', changeWindowsMs: [1, 2] }),
  );
  // A result window of 8: a walk takes several searches and passes over records in hops.
  describeIdWalkContract('elasticsearch, result window 8', () =>
    createTestBackend('elasticsearch', url, { spatial: 'envelope', maxResultWindow: 8 }),
  );
}
