/**
 * Fault: the search engine stops under load, in scaled mode (API process + worker process +
 * Redis, all real). The suite's own Elasticsearch node is stopped while queries on every
 * protocol and bulk writes keep coming, then started again:
 *
 * - while it is down, every query answers 503 with Retry-After in its protocol's error format
 *   (never a 500 or a hang), /readyz says unavailable, and writes are still accepted (202):
 *   they wait in the queue;
 * - when it is back, the same API and worker processes (no restart) answer normally again and
 *   the worker writes every queued record: the engine ends with exactly the seeded records plus
 *   every accepted one, and no job failed;
 * - an API and a worker started during the outage wait for the engine instead of exiting, and
 *   serve (and work) once it is back.
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
  engineRecordIds,
  queuesDrained,
  queuesOf,
  removeTestFolder,
  type ScaledCatalogue,
} from './support/scaled-catalogue.js';

const SEEDED = 200;
const QUERY_PROTOCOLS = PROBES.map((probe) => probe.protocol);

/** True when every query protocol has an outcome with this verdict sent after `time`. */
function everyProtocol(outcomes: Outcome[], verdict: Outcome['verdict'], time: number): boolean {
  return QUERY_PROTOCOLS.every((protocol) =>
    outcomes.some((o) => o.protocol === protocol && o.verdict === verdict && o.sentAt >= time),
  );
}

describe('fault: the search engine stops under load (scaled mode)', function () {
  this.timeout(900_000);
  let services: DedicatedServices;
  let token: EditorToken;
  let catalogue: ScaledCatalogue;
  let queues: JobQueues;
  let api: ApiHandle;
  let worker: CairnProcess;
  let load: FaultLoad | undefined;
  let environment: Record<string, string>;
  let lateWorker: CairnProcess | undefined;
  let lateApi: Promise<ApiHandle> | undefined;

  before(async () => {
    token = await EditorToken.obtain();
    services = await DedicatedServices.create();
    const [engineUrl, redisUrl] = await Promise.all([
      services.start('elasticsearch'),
      services.start('redis'),
    ]);
    catalogue = await createScaledCatalogue('engine', engineUrl, redisUrl, SEEDED);
    environment = {
      ...catalogue.environment,
      // Few, quick attempts: the outage outlasts them all, so only waiting out an unavailable
      // engine (not spending attempts on it) keeps the queued jobs alive.
      WORKER_ATTEMPTS: '3',
      WORKER_BACKOFF_MS: '200',
    };
    queues = queuesOf(catalogue);
    api = await startApiProcess(environment, `${catalogue.directory}/api.log`);
    worker = startWorkerProcess(environment, `${catalogue.directory}/worker.log`);
  });

  after(async function () {
    await load?.stop();
    await api?.process.stop();
    await worker?.stop();
    await lateWorker?.stop();
    await (await lateApi?.catch(() => undefined))?.process.stop();
    await queues?.obliterate().catch(() => undefined);
    await queues?.close();
    await services?.close();
    token?.stop();
    if (catalogue) removeTestFolder(catalogue.directory, this.test?.parent);
  });

  it('answers 503 + Retry-After per protocol, queues writes, and recovers without loss or restart', async () => {
    load = new FaultLoad({ origin: api.origin, token: () => token.current }).start();
    const started = Date.now();
    await load.until((o) => everyProtocol(o, 'ok', started), 120_000, 'answers on every protocol');
    await waitFor(
      async () => ((await queues.queues.ingest.getJobCounts('completed')).completed ?? 0) > 0,
      120_000,
      'the worker to complete a first job',
    );

    const stopped = Date.now();
    await services.stop('elasticsearch');
    await load.until(
      (o) =>
        everyProtocol(o, 'unavailable', stopped) &&
        o.filter((w) => w.protocol === 'write' && w.verdict === 'ok' && w.sentAt > stopped)
          .length >= 3,
      120_000,
      'a 503 on every protocol and writes accepted while the engine is down',
    );
    const readiness = await fetch(`${api.origin}/readyz`);
    assert.equal(readiness.status, 503, 'readiness while the engine is down');
    assert.equal(((await readiness.json()) as { status: string }).status, 'unavailable');
    // Processes started during the outage wait for the engine instead of exiting.
    lateWorker = startWorkerProcess(environment, `${catalogue.directory}/worker-late.log`);
    lateApi = startApiProcess(environment, `${catalogue.directory}/api-late.log`, {
      timeoutMs: 600_000,
    });
    lateApi.catch(() => undefined); // awaited below

    await services.start('elasticsearch');
    const restarted = Date.now();
    await load.until(
      (o) => everyProtocol(o, 'ok', restarted),
      180_000,
      'normal answers after the engine is back',
    );
    await load.stop();

    const during = tally(load.outcomes.filter((o) => o.sentAt > stopped && o.doneAt < restarted));
    assert.deepEqual(
      load.problems(),
      [],
      `wrong answers (during the outage: ${JSON.stringify(during)})`,
    );
    assert.ok(api.process.running, `the API exited:\n${api.process.logTail()}`);
    assert.ok(worker.running, `the worker exited:\n${worker.logTail()}`);
    assert.equal((await fetch(`${api.origin}/readyz`)).status, 200);
    const late = await lateApi;
    const answer = await fetch(`${late.origin}/catalogue/collections/metadata:main/items?limit=1`);
    assert.equal(
      answer.status,
      200,
      'an API started during the outage serves once the engine is back',
    );
    assert.ok(
      lateWorker.running,
      `the worker started during the outage exited:\n${lateWorker.logTail()}`,
    );

    await waitFor(() => queuesDrained(queues), 300_000, 'the worker to write every queued job');
    const failed = await queues.queues.ingest.getJobCounts('failed');
    assert.equal(failed.failed, 0, `failed jobs:\n${worker.logTail()}`);
    const ids = await engineRecordIds(catalogue);
    const accepted = [...load.acceptedIds];
    assert.ok(accepted.length > 0);
    const missing = accepted.filter((id) => !ids.includes(id));
    assert.deepEqual(missing, [], 'accepted records missing from the engine');
    assert.equal(ids.length, SEEDED + accepted.length, 'records in the engine');
  });
});
