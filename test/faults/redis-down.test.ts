/**
 * Fault: Redis stops under load, in scaled mode (API process + worker process on the shared
 * Elasticsearch, the suite's own Redis). A backlog of accepted writes is waiting in the queue
 * when Redis is stopped; then:
 *
 * - writes answer 503 with Retry-After at once (the producer fails fast, it does not hang),
 *   reads on every protocol keep answering normally, and /readyz reports the queue down
 *   while staying ready for reads;
 * - when Redis is back (reloading its append-only file), the same API accepts writes again and
 *   the same worker reconnects and performs every accepted job: the engine ends with exactly
 *   the seeded records plus every accepted one, and no job failed.
 */
import { strict as assert } from 'node:assert';
import type { JobQueues } from '../../shared/queue/job-queues.js';
import { waitFor } from '../integration/worker/worker-support.js';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiHandle,
  type CairnProcess,
} from '../../scripts/processes/cairn-process.js';
import { DedicatedServices } from './support/dedicated-services.js';
import { EditorToken } from './support/editor-token.js';
import { FaultLoad, PROBES, tally, type Outcome } from './support/fault-load.js';
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

const SEEDED = 100;

const writesSince = (outcomes: Outcome[], verdict: Outcome['verdict'], time: number): number =>
  outcomes.filter((o) => o.protocol === 'write' && o.verdict === verdict && o.sentAt > time).length;

const everyProtocolOk = (outcomes: Outcome[], time: number): boolean =>
  PROBES.every((probe) =>
    outcomes.some((o) => o.protocol === probe.protocol && o.verdict === 'ok' && o.sentAt > time),
  );

describe('fault: Redis stops under load (scaled mode)', function () {
  this.timeout(600_000);
  let services: DedicatedServices;
  let token: EditorToken;
  let catalogue: ScaledCatalogue | undefined;
  let queues: JobQueues;
  let api: ApiHandle;
  let worker: CairnProcess;
  let load: FaultLoad | undefined;

  before(async () => {
    const engineUrl = sharedEngineUrl();
    token = await EditorToken.obtain();
    services = await DedicatedServices.create();
    const redisUrl = await services.start('redis');
    catalogue = await createScaledCatalogue('redis', engineUrl, redisUrl, SEEDED);
    const environment = {
      ...catalogue.environment,
      // A job whose worker lost Redis mid-job is taken over soon after Redis is back.
      WORKER_STALLED_INTERVAL_MS: '1000',
      WORKER_LOCK_DURATION_MS: '3000',
    };
    queues = queuesOf(catalogue);
    api = await startApiProcess(environment, `${catalogue.directory}/api.log`);
    worker = startWorkerProcess(environment, `${catalogue.directory}/worker.log`);
  });

  after(async function () {
    await load?.stop();
    await api?.process.stop();
    await worker?.stop();
    await queues?.obliterate().catch(() => undefined); // fails fast if Redis is down
    await queues?.close();
    await services?.close();
    if (catalogue) await destroyScaledCatalogue(catalogue);
    token?.stop();
    if (catalogue) removeTestFolder(catalogue.directory, this.test?.parent);
  });

  it('refuses writes with 503 at once, keeps reads working, and loses no accepted job', async () => {
    load = new FaultLoad({ origin: api.origin, token: () => token.current }).start();
    const started = Date.now();
    await load.until((o) => everyProtocolOk(o, started), 120_000, 'answers on every protocol');
    await waitFor(
      async () => ((await queues.queues.ingest.getJobCounts('completed')).completed ?? 0) > 0,
      120_000,
      'the worker to complete a first job',
    );

    await load.writeBurst(20); // a backlog waiting in the queue when Redis stops
    const backlog = await queues.queues.ingest.getJobCounts('waiting', 'active', 'prioritized');
    assert.ok(
      Object.values(backlog).some((count) => count > 0),
      'jobs are waiting when Redis stops',
    );
    const stopped = Date.now();
    await services.stop('redis');
    await load.until(
      (o) => writesSince(o, 'unavailable', stopped) >= 3 && everyProtocolOk(o, stopped),
      120_000,
      'writes refused and reads answered while Redis is down',
    );
    const readiness = await fetch(`${api.origin}/readyz`);
    const ready = (await readiness.json()) as { status: string; queue?: { ok: boolean } };
    assert.equal(readiness.status, 200, 'reads are still served: the API stays ready');
    assert.equal(ready.status, 'degraded');
    assert.equal(ready.queue?.ok, false);

    await services.start('redis');
    const restarted = Date.now();
    await load.until((o) => writesSince(o, 'ok', restarted) >= 3, 120_000, 'writes accepted again');
    await load.stop();

    const queries = load.outcomes.filter((o) => o.protocol !== 'write');
    assert.deepEqual(load.problems(), [], `wrong answers: ${JSON.stringify(tally(load.outcomes))}`);
    assert.deepEqual(
      queries.filter((o) => o.verdict !== 'ok').map((o) => `${o.protocol} ${o.status}`),
      [],
      'reads are unaffected by Redis',
    );
    assert.ok(api.process.running, `the API exited:\n${api.process.logTail()}`);
    assert.ok(worker.running, `the worker exited:\n${worker.logTail()}`);

    await waitFor(() => queuesDrained(queues), 300_000, 'the worker to perform every queued job');
    const failed = await queues.queues.ingest.getJobCounts('failed');
    assert.equal(failed.failed, 0, `failed jobs:\n${worker.logTail()}`);
    const ids = await engineRecordIds(catalogue!);
    const accepted = [...load.acceptedIds];
    const missing = accepted.filter((id) => !ids.includes(id));
    assert.deepEqual(missing, [], 'accepted records missing from the engine');
    const refusedButWritten = [...load.refusedIds].filter((id) => ids.includes(id));
    assert.deepEqual(refusedButWritten, [], 'records of refused writes found in the engine');
    assert.equal(ids.length, SEEDED + accepted.length, 'records in the engine');
  });
});
