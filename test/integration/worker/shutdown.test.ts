/**
 * Graceful shutdown against a real Redis. The worker on SIGTERM finishes the jobs it holds
 * (none is left active or failed, the rest stay queued for the next worker) and exits 0. The
 * API process on SIGTERM stops listening, closes its queue connections, ingest log and backend,
 * and exits 0.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import { SqliteIngestLog } from '../../../shared/search/sqlite/sqlite-ingest-log.js';
import {
  buildTestEnvironment,
  configFor,
  generatedDocuments,
  REDIS_URL,
  requireRedis,
  waitFor,
} from './worker-support.js';
import { defined } from '../../support/defined.js';

/** Starts a service process with the test environment; its output is collected. */
function start(
  entry: string,
  environment: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

describe('graceful shutdown (real Redis)', function () {
  this.timeout(300000);
  const children: ChildProcess[] = [];

  before(requireRedis);
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('the worker finishes its in-flight jobs on SIGTERM and leaves the rest queued', async () => {
    const environment = { ...buildTestEnvironment('sigterm'), WORKER_CONCURRENCY: '1' };
    const config = configFor(environment);
    const queues = new JobQueues(REDIS_URL, config.worker);
    const ingestLog = new SqliteIngestLog(config.worker.ingestLogPath);
    try {
      const ids: string[] = [];
      for (let job = 0; job < 6; job += 1)
        ids.push(
          await queues.enqueue('ingest', { documents: generatedDocuments(1500, job * 1500) }),
        );
      const worker = start('services/worker/main.ts', environment);
      children.push(worker.child);
      const ingest = queues.queues.ingest;
      await waitFor(
        async () => (await ingest.getJobCounts('active')).active === 1,
        120000,
        'a job to become active',
      );
      const active = defined((await ingest.getJobs(['active']))[0], 'the active job');
      worker.child.kill('SIGTERM');
      const [code] = (await once(worker.child, 'exit')) as [number | null];
      assert.equal(code, 0, worker.output());

      assert.equal(await active.getState(), 'completed', 'the in-flight job was finished');
      assert.equal((await ingestLog.get(active.id!))?.status, 'completed');
      const counts = await ingest.getJobCounts('active', 'failed', 'completed', 'waiting');
      assert.equal(counts.active, 0);
      assert.equal(counts.failed, 0);
      assert.ok((counts.waiting ?? 0) > 0, 'the worker stopped taking jobs');
      assert.equal((counts.completed ?? 0) + (counts.waiting ?? 0), ids.length);
    } finally {
      await queues.obliterate();
      await queues.close();
      await ingestLog.close();
    }
  });

  it('the API closes its queue, ingest log and backend on SIGTERM and exits 0', async () => {
    const environment = {
      ...buildTestEnvironment('api-sigterm'),
      LOG_LEVEL: 'info',
      PORT: '0',
      SAMPLE_RECORDS: '0',
    };
    const api = start('services/api/main.ts', environment);
    children.push(api.child);
    let base = '';
    await waitFor(
      async () => {
        const url = /"url":"(http:[^"]+)\/catalogue"/.exec(api.output())?.[1];
        if (api.child.exitCode !== null) throw new Error(`the API exited: ${api.output()}`);
        if (url) base = url;
        return base !== '';
      },
      120000,
      'the API to listen',
    );
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    api.child.kill('SIGTERM');
    const [code] = (await once(api.child, 'exit')) as [number | null];
    assert.equal(code, 0, api.output());
    const lines = api.output().split('\n');
    const shuttingDown = lines.findIndex((line) => line.includes('"shutting down"'));
    const stopped = lines.findIndex((line) => line.includes('"message":"stopped"'));
    assert.ok(shuttingDown >= 0 && stopped > shuttingDown, api.output());
    await assert.rejects(fetch(`${base}/readyz`), 'the port is closed');
  });
});
