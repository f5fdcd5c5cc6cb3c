/**
 * The producer against a real Redis: a write whose enqueue is in flight when the connection
 * drops is refused at once with a 503, and is not queued later behind its client's back.
 *
 * Redis is made to hold the command with `CLIENT PAUSE … WRITE` (the enqueue script waits
 * unanswered), then the producer's own connection (found by its name) is killed: the command
 * was sent and never executed. The pause holds the writes of every client of the shared test
 * Redis, so it is lifted as soon as the enqueue settles, and at the latest when the enqueue is
 * taken to hang (HANG_MS, which fails the test; a resent command would wait out the pause).
 */
import { strict as assert } from 'node:assert';
import { Redis } from 'ioredis';
import { ServiceUnavailableError } from '../../../shared/errors/index.js';
import { JobQueues } from '../../../shared/queue/job-queues.js';
import {
  buildTestEnvironment,
  configFor,
  generatedDocuments,
  REDIS_URL,
  requireRedis,
} from './worker-support.js';
import { defined } from '../../support/defined.js';

/** Redis lifts the pause by itself after this long, should the test process die meanwhile. */
const PAUSE_MS = 30_000;
/** An enqueue still unsettled this long after its connection dropped is hanging. */
const HANG_MS = 10_000;

describe('queue producer (real Redis)', function () {
  this.timeout(60_000);
  let admin: Redis;
  let queues: JobQueues;
  let prefix: string;

  before(async () => {
    await requireRedis();
    admin = new Redis(REDIS_URL);
    const config = configFor(buildTestEnvironment('producer'));
    prefix = config.worker.queuePrefix;
    queues = new JobQueues(REDIS_URL, config.worker);
    await queues.enqueue('ingest', { documents: generatedDocuments(1) }); // connected, scripts loaded
  });

  after(async () => {
    await admin?.client('UNPAUSE');
    await queues?.obliterate().catch(() => undefined);
    await queues?.close();
    admin?.disconnect();
  });

  /** The producer's connections, as CLIENT LIST lines. */
  async function producerClients(): Promise<string[]> {
    const list = (await admin.client('LIST')) as string;
    return list.split('\n').filter((line) => line.includes(` name=${prefix}:producer `));
  }

  /** Ids of the producer's connections, from CLIENT LIST. */
  async function producerClientIds(): Promise<string[]> {
    return (await producerClients()).map((line) =>
      defined(/(?:^|\s)id=(\d+)/.exec(line)?.[1], `the id in ${line}`),
    );
  }

  /**
   * Waits until Redis holds a script of the producer: its connection is blocked (flag `b`, a
   * command postponed by the pause) with a script as its command. Polled, within HANG_MS.
   */
  async function untilScriptHeld(): Promise<void> {
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      const lines = await producerClients();
      const held = lines.some(
        (line) => /(?:^|\s)flags=\w*b/.test(line) && /(?:^|\s)cmd=eval(sha)?(?:\s|$)/.test(line),
      );
      if (held) return;
      if (Date.now() > deadline) {
        throw new Error(`Redis never held the enqueue script: ${lines.join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('names its connection after the queue prefix', async () => {
    assert.equal((await producerClientIds()).length, 1);
  });

  it('refuses an enqueue in flight when the connection drops, and never queues it', async () => {
    const jobId = `in-flight-${Date.now()}`;
    await admin.client('PAUSE', PAUSE_MS, 'WRITE');
    try {
      const enqueue = queues.enqueue('ingest', { documents: generatedDocuments(1, 1) }, { jobId });
      // Redis holds the script; once it has been sent, drop the producer's connection.
      const outcome = enqueue.then(
        () => 'queued',
        (error: unknown) => error,
      );
      await untilScriptHeld();
      const ids = await producerClientIds();
      assert.equal(ids.length, 1, 'the producer is connected');
      await admin.client('KILL', 'ID', defined(ids[0], 'the producer connection id'));
      const hanging = new Promise((resolve) => setTimeout(() => resolve('hanging'), HANG_MS));
      const settled = await Promise.race([outcome, hanging]);
      assert.ok(
        settled instanceof ServiceUnavailableError,
        `the enqueue ended with ${String(settled)}`,
      );
      assert.equal(settled.status, 503);
    } finally {
      await admin.client('UNPAUSE');
    }
    // The reconnected producer works, and the refused job was not queued after all.
    await queues.enqueue('ingest', { documents: generatedDocuments(1, 2) });
    assert.equal(await queues.queues.ingest.getJob(jobId), undefined);
  });
});
