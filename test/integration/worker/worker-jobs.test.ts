/**
 * Worker jobs against a real Redis, in process: bad records dead-lettered while the rest are
 * written, idempotent redelivery, infrastructure failures retried with backoff, deletes.
 */
import { strict as assert } from 'node:assert';
import { QueueEvents } from 'bullmq';
import { createLogger } from '../../../shared/logging/index.js';
import { buildConnection } from '../../../shared/queue/connection.js';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import { ATOMIC_REFUSAL, type JobResult } from '../../../shared/queue/job-payloads.js';
import { ServiceUnavailableError } from '../../../shared/errors/index.js';
import { SqliteBackend } from '../../../shared/search/sqlite/sqlite-backend.js';
import { SqliteIngestLog } from '../../../shared/search/sqlite/sqlite-ingest-log.js';
import { startWorkers, type RunningWorkers } from '../../../services/worker/start-workers.js';
import {
  buildTestEnvironment,
  configFor,
  generatedDocuments,
  REDIS_URL,
  requireRedis,
} from './worker-support.js';
import { defined } from '../../support/defined.js';

describe('worker jobs (real Redis)', function () {
  this.timeout(60000);
  const environment = buildTestEnvironment('jobs');
  const config = configFor(environment);
  let backend: SqliteBackend;
  let ingestLog: SqliteIngestLog;
  let queues: JobQueues;
  let running: RunningWorkers;
  let events: Record<'ingest' | 'delete', QueueEvents>;
  let failNextUpserts = 0;
  let upsertFailure: () => Error = () => new ServiceUnavailableError('search backend unavailable');

  before(async () => {
    await requireRedis();
    backend = new SqliteBackend({
      path: config.search.kind === 'sqlite' ? config.search.path : '',
    });
    await backend.init();
    ingestLog = new SqliteIngestLog(config.worker.ingestLogPath);
    queues = new JobQueues(REDIS_URL, config.worker);
    // A backend that fails (by default: is "unavailable") for the next `failNextUpserts` writes.
    const flaky = Object.create(backend) as SqliteBackend;
    flaky.upsert = async (records) => {
      if (failNextUpserts > 0) {
        failNextUpserts -= 1;
        throw upsertFailure();
      }
      return backend.upsert(records);
    };
    const connection = buildConnection(REDIS_URL);
    const prefix = config.worker.queuePrefix;
    events = {
      ingest: new QueueEvents('ingest', { connection, prefix }),
      delete: new QueueEvents('delete', { connection, prefix }),
    };
    await Promise.all(Object.values(events).map((e) => e.waitUntilReady()));
    running = startWorkers({
      redisUrl: REDIS_URL,
      config: config.worker,
      backend: flaky,
      logger: createLogger('silent', 'test'),
      ingestLog,
    });
  });

  after(async () => {
    await running?.close();
    await Promise.all(Object.values(events ?? {}).map((e) => e.close()));
    await queues?.obliterate();
    await queues?.close();
    await ingestLog?.close();
    await backend?.close();
  });

  async function run(name: 'ingest' | 'delete', payload: object): Promise<[string, JobResult]> {
    const id = await queues.enqueue(name, payload as never);
    const job = await queues.queues[name].getJob(id);
    assert.ok(job);
    return [id, (await job.waitUntilFinished(events[name], 30000)) as JobResult];
  }

  it('writes the good records of a batch and dead-letters the bad ones with their reasons', async () => {
    const good = generatedDocuments(5);
    const bad = [
      { name: 'broken json', content: '{"type": "Feature", ' },
      { name: 'not a record', content: JSON.stringify({ type: 'Nonsense', id: 'x-1' }) },
    ];
    const [id, result] = await run('ingest', { documents: [...good, ...bad] });
    assert.equal(result.read, 7);
    assert.equal(result.written, 5);
    assert.equal(result.rejected, 2);
    assert.equal(result.records.filter((r) => r.status === 'written').length, 5);
    const letters = await queues.deadLetters.list({ jobId: id });
    assert.deepEqual(letters.map((l) => l.name).sort(), ['broken json', 'not a record (id x-1)']);
    for (const letter of letters) {
      assert.ok(letter.reason.length > 0);
      assert.ok(
        bad.some((document) => JSON.stringify(document) === JSON.stringify(letter.payload)),
      );
    }
    const entry = await ingestLog.get(id);
    assert.equal(entry?.status, 'completed');
    assert.equal(entry?.written, 5);
    assert.equal(entry?.failures.length, 2);
  });

  it('leaves the same state when the same job runs twice (upserts by id)', async () => {
    const documents = generatedDocuments(10, 100);
    await run('ingest', { documents });
    const before = (await backend.health()).records;
    const [, again] = await run('ingest', { documents });
    assert.equal(again.written, 10);
    assert.equal((await backend.health()).records, before);
  });

  it('waits out an unavailable backend with backoff, spending no attempt, then succeeds', async () => {
    failNextUpserts = Number(environment.WORKER_ATTEMPTS) + 1; // more tries than attempts
    const [id, result] = await run('ingest', { documents: generatedDocuments(3, 200) });
    assert.equal(result.written, 3);
    const job = await queues.queues.ingest.getJob(id);
    assert.equal(job?.attemptsMade, 1);
    const entry = await ingestLog.get(id);
    assert.equal(entry?.status, 'completed');
    assert.equal(entry?.attempts, 1);
  });

  it('retries another infrastructure failure with backoff, spending attempts', async () => {
    failNextUpserts = 2;
    upsertFailure = () => new Error('disk full');
    try {
      const [id, result] = await run('ingest', { documents: generatedDocuments(3, 300) });
      assert.equal(result.written, 3);
      const job = await queues.queues.ingest.getJob(id);
      assert.equal(job?.attemptsMade, 3);
      assert.equal((await ingestLog.get(id))?.attempts, 3);
    } finally {
      upsertFailure = () => new ServiceUnavailableError('search backend unavailable');
    }
  });

  it('fails a malformed job at once, without retrying, and keeps its payload', async () => {
    const id = await queues.enqueue('ingest', { documents: [] });
    const job = await queues.queues.ingest.getJob(id);
    await assert.rejects(job!.waitUntilFinished(events.ingest, 30000), /non-empty "documents"/);
    const failed = await queues.queues.ingest.getJob(id);
    assert.equal(failed?.attemptsMade, 1);
    const letters = await queues.deadLetters.list({ jobId: id });
    assert.equal(letters.length, 1);
    assert.deepEqual(letters[0]?.payload, { documents: [] });
    assert.equal((await ingestLog.get(id))?.status, 'failed');
  });

  it('deletes records by id, reporting missing ones, idempotently', async () => {
    const documents = generatedDocuments(2, 300);
    const [, written] = await run('ingest', { documents });
    const ids = written.records.map((r) => r.name);
    const [, first] = await run('delete', { ids: [...ids, 'no-such-record'] });
    assert.deepEqual(
      first.records.map((r) => r.status),
      ['deleted', 'deleted', 'missing'],
    );
    const [, second] = await run('delete', { ids });
    assert.equal(second.deleted, 0);
    for (const id of ids) assert.equal(await backend.get(id), null);
  });

  it('applies an atomic (CSW-T) ingest job as one unit: its writes and deletes, or nothing', async () => {
    const [, seeded] = await run('ingest', { documents: generatedDocuments(2, 400) });
    const [first, second] = seeded.records.map((r) => r.name);
    const kept = defined(first, 'the kept record');
    const doomed = defined(second, 'the doomed record');
    const fresh = generatedDocuments(1, 410);
    const refused = await queues.enqueue('ingest', {
      documents: [...fresh, { name: 'broken', content: '{"type": "Feature", ' }],
      atomic: { deleteIds: [doomed] },
    });
    const job = await queues.queues.ingest.getJob(refused);
    await assert.rejects(
      job!.waitUntilFinished(events.ingest, 30000),
      (error: Error) => error.message.startsWith(ATOMIC_REFUSAL) && /broken/.test(error.message),
    );
    assert.equal((await queues.queues.ingest.getJob(refused))?.attemptsMade, 1, 'not retried');
    const freshId = JSON.parse(defined(fresh[0], 'the fresh document').content).id as string;
    assert.equal(await backend.get(freshId), null, 'the good record was not written');
    assert.ok(await backend.get(doomed), 'the delete was not applied');

    const [, applied] = await run('ingest', { documents: fresh, atomic: { deleteIds: [doomed] } });
    assert.deepEqual([applied.written, applied.deleted], [1, 1]);
    assert.ok(await backend.get(freshId));
    assert.equal(await backend.get(doomed), null);
    assert.ok(await backend.get(kept));
  });
});
