/**
 * The worker process against a real Redis: 20,000 generated records enqueued, the worker
 * SIGKILLed mid-run and restarted; stalled jobs are taken over and the final state is exact
 * (every record once, every job once in the ingest log). Then SIGTERM stops it cleanly.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import { SqliteBackend } from '../../../shared/search/sqlite/sqlite-backend.js';
import { SqliteIngestLog } from '../../../shared/search/sqlite/sqlite-ingest-log.js';
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

describe('worker process: SIGKILL mid-run, restart (real Redis)', function () {
  this.timeout(600000);
  const environment = buildTestEnvironment('crash');
  const config = configFor(environment);
  let queues: JobQueues;
  let ingestLog: SqliteIngestLog;
  let child: ChildProcess | undefined;

  before(async () => {
    await requireRedis();
    queues = new JobQueues(REDIS_URL, config.worker);
    ingestLog = new SqliteIngestLog(config.worker.ingestLogPath);
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await queues?.obliterate();
    await queues?.close();
    await ingestLog?.close();
  });

  const completedJobs = async (): Promise<number> =>
    (await queues.queues.ingest.getJobCounts('completed')).completed ?? 0;

  it('ends with every record exactly once and one completed log entry per job', async () => {
    for (let job = 0; job < JOBS; job += 1)
      await queues.enqueue('ingest', { documents: generatedDocuments(PER_JOB, job * PER_JOB) });

    child = startWorker(environment);
    await waitFor(async () => (await completedJobs()) >= 3, 300000, 'first jobs to complete');
    const beforeKill = await queues.queues.ingest.getJobCounts('active', 'completed');
    child.kill('SIGKILL');
    await once(child, 'exit');
    const afterKill = await completedJobs();
    assert.ok(afterKill < JOBS, `the worker finished everything (${afterKill}) before the kill`);
    assert.ok((beforeKill.active ?? 0) >= 0);

    child = startWorker(environment);
    await waitFor(async () => (await completedJobs()) === JOBS, 500000, 'all jobs to complete');
    const counts = await queues.queues.ingest.getJobCounts('failed', 'waiting', 'active');
    assert.deepEqual(counts, { failed: 0, waiting: 0, active: 0 });

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, 'SIGTERM ends the worker cleanly');

    const backend = new SqliteBackend({
      path: config.search.kind === 'sqlite' ? config.search.path : '',
    });
    try {
      assert.equal((await backend.health()).records, RECORDS);
    } finally {
      await backend.close();
    }
    const page = await ingestLog.list({ limit: 1000, offset: 0 });
    assert.equal(page.total, JOBS);
    assert.ok(page.entries.every((entry) => entry.status === 'completed'));
    assert.equal(
      page.entries.reduce((sum, entry) => sum + entry.written, 0),
      RECORDS,
    );
    assert.equal(await queues.deadLetters.count(), 0);
  });
});
