/**
 * Fault: the worker is killed (SIGKILL) in the middle of a batch, in scaled mode on the shared
 * Elasticsearch. Jobs of 500 records are written in batches of 100; the worker is killed while
 * jobs are running, and a new worker process takes the stalled jobs over: the engine ends with
 * every record exactly once, every job completed once in the ingest log, none failed.
 *
 * The same fault over the embedded backend, with 20,000 records, is
 * test/integration/worker/worker-crash.test.ts (the integration phase runs it).
 */
import { strict as assert } from 'node:assert';
import { loadConfig } from '../../shared/config/index.js';
import { openIngestLog } from '../../shared/search/open-stores.js';
import type { JobQueues } from '../../shared/queue/job-queues.js';
import { createBackend } from '../../shared/search/create-backend.js';
import {
  generatedDocuments,
  REDIS_URL,
  requireRedis,
  waitFor,
} from '../integration/worker/worker-support.js';
import { startWorkerProcess, type CairnProcess } from '../../scripts/processes/cairn-process.js';
import {
  createScaledCatalogue,
  destroyScaledCatalogue,
  engineRecordIds,
  queuesDrained,
  queuesOf,
  sharedEngineUrl,
  removeTestFolder,
  type ScaledCatalogue,
} from './support/scaled-catalogue.js';

const SEEDED = 50;
const JOBS = 12;
const PER_JOB = 500;

describe('fault: the worker is killed mid-batch (scaled mode)', function () {
  this.timeout(600_000);
  let catalogue: ScaledCatalogue | undefined;
  let queues: JobQueues;
  let environment: Record<string, string>;
  let worker: CairnProcess | undefined;

  before(async () => {
    const engineUrl = sharedEngineUrl();
    await requireRedis();
    catalogue = await createScaledCatalogue('worker', engineUrl, REDIS_URL, SEEDED);
    environment = {
      ...catalogue.environment,
      WORKER_BATCH_SIZE: '100',
      WORKER_CONCURRENCY: '2',
      WORKER_STALLED_INTERVAL_MS: '1000',
      WORKER_LOCK_DURATION_MS: '3000',
    };
    queues = queuesOf(catalogue);
  });

  after(async function () {
    await worker?.stop('SIGKILL');
    await queues?.obliterate().catch(() => undefined);
    await queues?.close();
    if (catalogue) await destroyScaledCatalogue(catalogue);
    if (catalogue) removeTestFolder(catalogue.directory, this.test?.parent);
  });

  const counts = () => queues.queues.ingest.getJobCounts('active', 'completed', 'failed');

  it('takes the killed worker’s jobs over and writes every record exactly once', async () => {
    for (let job = 0; job < JOBS; job += 1)
      await queues.enqueue('ingest', { documents: generatedDocuments(PER_JOB, job * PER_JOB) });

    worker = startWorkerProcess(environment, `${catalogue!.directory}/worker-1.log`);
    await waitFor(
      async () => {
        const { active = 0, completed = 0 } = await counts();
        return completed >= 2 && active > 0;
      },
      300_000,
      'jobs completed and others running',
    );
    assert.equal(await worker.stop('SIGKILL'), null, 'killed by the signal');
    const atKill = await counts();
    assert.ok((atKill.completed ?? 0) < JOBS, 'the kill came before the last job');

    worker = startWorkerProcess(environment, `${catalogue!.directory}/worker-2.log`);
    await waitFor(() => queuesDrained(queues), 300_000, 'the new worker to finish every job');
    assert.deepEqual(await counts(), { active: 0, completed: JOBS, failed: 0 });
    assert.equal(await worker.stop('SIGTERM'), 0, 'SIGTERM ends the worker cleanly');

    const ids = await engineRecordIds(catalogue!);
    assert.equal(ids.length, SEEDED + JOBS * PER_JOB, 'records in the engine');
    assert.equal(new Set(ids).size, ids.length);
    const config = loadConfig(environment);
    const backend = await createBackend(config);
    const log = openIngestLog(config, backend);
    try {
      const page = await log.list({ limit: 1000, offset: 0 });
      const completed = page.entries.filter((entry) => entry.status === 'completed');
      assert.equal(completed.length, JOBS, 'one completed log entry per job');
      assert.equal(
        completed.reduce((sum, entry) => sum + entry.written, 0),
        JOBS * PER_JOB,
      );
    } finally {
      await log.close();
      await backend.close();
    }
  });
});
