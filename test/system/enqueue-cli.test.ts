/**
 * The enqueue CLI against a real Redis and a running worker process (embedded SQLite backend):
 * files and folders become ingest jobs followed to their end, bad records are reported while
 * the rest are written, `--follow` follows a queued job, and the exit code is non-zero only
 * when nothing could be written.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueues } from '../../shared/queue/job-queues.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import {
  buildTestEnvironment,
  configFor,
  generatedDocuments,
  REDIS_URL,
  requireRedis,
} from '../integration/worker/worker-support.js';
import { defined } from '../support/defined.js';

/** Runs the CLI to its end; resolves with its exit code and output. */
async function runCli(
  args: string[],
  environment: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/enqueue.ts', ...args], {
    env: { ...process.env, ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('enqueue CLI (real Redis, worker process)', function () {
  this.timeout(180000);
  const environment = { ...buildTestEnvironment('enqueue'), WORKER_JOB_RECORDS: '10' };
  const config = configFor(environment);
  let worker: ChildProcess | undefined;
  let queues: JobQueues;
  let backend: SqliteBackend;
  const folder = mkdtempSync(join(tmpdir(), 'cairn-enqueue-files-'));

  before(async () => {
    await requireRedis();
    const records = [...generateRecords(31, 23)].map((record) => JSON.stringify(record));
    mkdirSync(join(folder, 'upload'));
    writeFileSync(
      join(folder, 'upload', 'records.ndjson'),
      [...records.slice(0, 30), '{"type": "Feature", "properties": {}}'].join('\n'),
    );
    writeFileSync(join(folder, 'upload', 'one.json'), defined(records[30], 'the 31st record'));
    writeFileSync(join(folder, 'upload', 'broken.xml'), '<gmd:MD_Metadata><unclosed>');
    mkdirSync(join(folder, 'bad'));
    writeFileSync(join(folder, 'bad', 'nothing.json'), '{"hello": "world"}');
    queues = new JobQueues(REDIS_URL, config.worker);
    worker = spawn(process.execPath, ['--import', 'tsx', 'services/worker/main.ts'], {
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    backend = new SqliteBackend({
      path: config.search.kind === 'sqlite' ? config.search.path : '',
    });
  });

  after(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    await backend?.close();
    await queues?.obliterate();
    await queues?.close();
  });

  it('enqueues a folder in jobs, follows them, writes the good records and lists the bad', async () => {
    const run = await runCli([join(folder, 'upload')], environment);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^jobs: 4 \(0 failed\)$/m, run.stdout);
    assert.match(run.stdout, /^records read: 33$/m);
    assert.match(run.stdout, /^records written: 31$/m);
    assert.match(run.stdout, /^records rejected: 2$/m);
    assert.match(run.stdout, /broken\.xml: /);
    assert.match(run.stdout, /records\.ndjson:31-31: GeoJSON record has no "id"/);
    assert.match(run.stderr, /jobs +\[.*\] 4\/4 finished/, 'the progress bars were drawn');
    await backend.init();
    assert.equal((await backend.health()).records, 31);
    assert.equal(await queues.deadLetters.count(), 2);
  });

  it('follows a job already queued', async () => {
    const jobId = await queues.enqueue('ingest', { documents: generatedDocuments(5, 900) });
    const run = await runCli(['--follow', jobId], environment);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^jobs: 1 \(0 failed\)$/m);
    assert.match(run.stdout, /^records written: 5$/m);
  });

  it('exits non-zero when nothing could be written', async () => {
    const bad = await runCli([join(folder, 'bad'), '--quiet'], environment);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /^records written: 0$/m, bad.stderr);
    assert.match(bad.stdout, /^records rejected: 1$/m);
    const unknown = await runCli(['--follow', 'no-such-job'], environment);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stdout, /no-such-job: no such job in any queue/);
    const usage = await runCli([], environment);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: npm run enqueue/);
  });
});
