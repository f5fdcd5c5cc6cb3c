/**
 * The worker process against a real Redis: 20,000 generated records enqueued, the worker
 * SIGKILLed mid-run and restarted; stalled jobs are taken over and the final state is exact
 * (every record once, every job once in the ingest log). Then SIGTERM stops it cleanly. Run on
 * the embedded SQLite backend and on Elasticsearch (scaled mode: the ingest log in the engine).
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { openIngestLog } from '../../../shared/search/open-stores.js';
import type { IngestLog } from '../../../shared/ingest/ingest-log.js';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import type { SearchBackend } from '../../../shared/search/backend.js';
import { createBackend } from '../../../shared/search/create-backend.js';
import { EngineBackend } from '../../../shared/search/engine/engine-backend.js';
import { requireEngineUrl, uniqueAlias } from '../engine-backend-cases.js';
import {
  buildTestEnvironment,
  configFor,
  generatedDocuments,
  REDIS_URL,
  requireRedis,
  waitFor,
} from './worker-support.js';

const RECORDS = 20000;
const PER_JOB = 500;
const JOBS = RECORDS / PER_JOB;

function startWorker(environment: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/worker/main.ts'], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

/** The ids the generated documents carry, in order. */
function generatedIds(): string[] {
  return generatedDocuments(RECORDS).map(
    (document) => (JSON.parse(document.content) as { id: string }).id,
  );
}

/** Registers the crash case for one backend, given the environment that selects it. */
function describeCrash(label: string, engineEnvironment: () => Record<string, string>): void {
  describe(`worker process on ${label}: SIGKILL mid-run, restart (real Redis)`, function () {
    this.timeout(900000);
    let environment: Record<string, string>;
    let queues: JobQueues;
    let backend: SearchBackend;
    let ingestLog: IngestLog;
    let child: ChildProcess | undefined;

    before(async () => {
      await requireRedis();
      environment = { ...buildTestEnvironment(`crash-${label}`), ...engineEnvironment() };
      const config = configFor(environment);
      queues = new JobQueues(REDIS_URL, config.worker);
      backend = await createBackend(config);
      ingestLog = openIngestLog(config, backend);
    });

    after(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await queues?.obliterate();
      await queues?.close();
      await ingestLog?.close();
      if (backend instanceof EngineBackend) await backend.destroy().catch(() => undefined);
      await backend?.close();
    });

    const completedJobs = async (): Promise<number> =>
      (await queues.queues.ingest.getJobCounts('completed')).completed ?? 0;

    it('ends with every record exactly once and one completed log entry per job', async () => {
      for (let job = 0; job < JOBS; job += 1)
        await queues.enqueue('ingest', { documents: generatedDocuments(PER_JOB, job * PER_JOB) });

      child = startWorker(environment);
      // Killed mid-run: some jobs done and at least one in the worker's hands at the kill.
      await waitFor(
        async () => {
          const { active = 0, completed = 0 } = await queues.queues.ingest.getJobCounts(
            'active',
            'completed',
          );
          return completed >= 3 && active > 0;
        },
        300000,
        'first jobs to complete and another to run',
      );
      child.kill('SIGKILL');
      await once(child, 'exit');
      const atKill = await queues.queues.ingest.getJobCounts('active', 'completed');
      assert.ok(
        (atKill.completed ?? 0) < JOBS,
        `the worker finished everything (${atKill.completed}) before the kill`,
      );
      // The killed worker's job stays active (locked) until it is found stalled and retried.
      assert.ok((atKill.active ?? 0) > 0, 'a job was in flight when the worker was killed');

      child = startWorker(environment);
      await waitFor(async () => (await completedJobs()) === JOBS, 600000, 'all jobs to complete');
      const counts = await queues.queues.ingest.getJobCounts('failed', 'waiting', 'active');
      assert.deepEqual(counts, { failed: 0, waiting: 0, active: 0 });

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, 'SIGTERM ends the worker cleanly');

      // Exact count, and every generated id present: nothing lost, nothing duplicated.
      if (backend instanceof EngineBackend) await backend.refresh();
      assert.equal((await backend.health()).records, RECORDS);
      const ids = generatedIds();
      assert.equal(new Set(ids).size, RECORDS);
      for (let start = 0; start < RECORDS; start += 1000) {
        const batch = ids.slice(start, start + 1000);
        const found = await backend.search({ ids: batch, sort: [], offset: 0, limit: 1000 });
        assert.equal(found.total, batch.length, `ids ${start}…${start + 999}`);
      }

      // The ingest log: one completed entry per job, their written counts adding up.
      const page = await ingestLog.list({ limit: 1000, offset: 0 });
      assert.equal(page.total, JOBS);
      assert.ok(page.entries.every((entry) => entry.status === 'completed'));
      assert.equal(new Set(page.entries.map((entry) => entry.jobId)).size, JOBS);
      assert.equal(
        page.entries.reduce((sum, entry) => sum + entry.written, 0),
        RECORDS,
      );
      assert.equal(await queues.deadLetters.count(), 0);
    });
  });
}

describeCrash('sqlite', () => ({}));

const url = requireEngineUrl('elasticsearch');
if (url)
  describeCrash('elasticsearch', () => ({
    ELASTICSEARCH_URL: url,
    SEARCH_INDEX_ALIAS: uniqueAlias('crash'),
  }));
