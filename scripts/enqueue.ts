/**
 * Enqueue CLI (scaled mode, needs REDIS_URL and a running worker):
 *
 *   npm run enqueue -- <files or folders…> [--format F] [--job-records N] [--quiet]
 *   npm run enqueue -- --follow <jobId…>
 *   npm run enqueue -- --reindex
 *
 * Files (JSON, NDJSON, XML; records or collections) are sent as ingest jobs of about
 * `--job-records` records (default WORKER_JOB_RECORDS), then followed to their end with
 * progress bars (jobs finished; records read, written, rejected). `--follow` follows jobs
 * already queued (of any queue); `--reindex` enqueues a reindex and follows it. Exits non-zero
 * only when nothing could be written.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../shared/config/index.js';
import type { RawDocument } from '../shared/ingest/pipeline.js';
import { isNdjsonFile, listFiles, readDocuments } from '../shared/ingest/read-files.js';
import { JobFollower, type JobEnding } from '../shared/queue/follow-jobs.js';
import { JobQueues } from '../shared/queue/job-queues.js';
import { QUEUE_NAMES, type JobDocument, type QueueName } from '../shared/queue/job-payloads.js';
import type { SourceFormat } from '../shared/records/core-record.js';

const USAGE = `usage: npm run enqueue -- <files or folders…> [--format F] [--job-records N] [--quiet]
       npm run enqueue -- --follow <jobId…>
       npm run enqueue -- --reindex`;

/** Most bytes of documents in one job, so a job stays a comfortable Redis value. */
const JOB_MAX_BYTES = 16 * 1024 * 1024;

/** Running totals over the followed jobs. */
interface Totals {
  jobs: number;
  finished: number;
  failed: { jobId: string; reason: string }[];
  read: number;
  written: number;
  deleted: number;
  rejected: { name: string; reason: string }[];
}

/** A document as a job payload carries it: without a format key when none was declared. */
function jobDocument({ name, content, format }: RawDocument): JobDocument {
  return format === undefined ? { name, content } : { name, content, format };
}

/** Groups raw documents into job payloads of about `jobRecords` records or JOB_MAX_BYTES. */
async function* groupJobs(
  documents: AsyncIterable<RawDocument>,
  jobRecords: number,
): AsyncGenerator<JobDocument[]> {
  let batch: JobDocument[] = [];
  let units = 0;
  let bytes = 0;
  for await (const document of documents) {
    const size = Buffer.byteLength(document.content);
    if (batch.length > 0 && (units >= jobRecords || bytes + size > JOB_MAX_BYTES)) {
      yield batch;
      batch = [];
      units = 0;
      bytes = 0;
    }
    batch.push(jobDocument(document));
    // An NDJSON chunk holds one record a line; any other document counts as one.
    units += isNdjsonFile(document.name.replace(/:\d+-\d+$/, ''))
      ? document.content.split('\n').length
      : 1;
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** Adds one job's ending to the totals. */
function addEnding(totals: Totals, ending: JobEnding): void {
  totals.finished += 1;
  if (ending.state === 'failed') {
    totals.failed.push({ jobId: ending.jobId, reason: ending.reason });
    return;
  }
  totals.read += ending.result.read;
  totals.written += ending.result.written;
  totals.deleted += ending.result.deleted;
  for (const record of ending.result.records)
    if (record.status === 'rejected')
      totals.rejected.push({ name: record.name, reason: record.reason ?? 'rejected' });
}

/** Progress bars: jobs finished, and records written out of those read. */
function createBars(quiet: boolean) {
  const multibar = new cliProgress.MultiBar(
    { stream: process.stderr, hideCursor: true, clearOnComplete: false, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  const jobs = quiet
    ? undefined
    : multibar.create(0, 0, {}, { format: 'jobs    [{bar}] {value}/{total} finished' });
  const records = quiet
    ? undefined
    : multibar.create(
        0,
        0,
        { rejected: 0 },
        {
          format: 'records [{bar}] {value}/{total} written, {rejected} rejected',
        },
      );
  return {
    update(totals: Totals): void {
      jobs?.setTotal(totals.jobs);
      jobs?.update(totals.finished);
      records?.setTotal(totals.read);
      records?.update(totals.written, { rejected: totals.rejected.length });
    },
    stop(): void {
      multibar.stop();
    },
  };
}

/** Prints the summary; returns the exit code (1 when nothing was written). */
function printSummary(totals: Totals, seconds: number): number {
  console.log(`jobs: ${totals.jobs} (${totals.failed.length} failed)`);
  for (const failure of totals.failed) console.log(`  - job ${failure.jobId}: ${failure.reason}`);
  console.log(`records read: ${totals.read}`);
  console.log(`records written: ${totals.written}`);
  if (totals.deleted > 0) console.log(`records deleted: ${totals.deleted}`);
  console.log(`records rejected: ${totals.rejected.length}`);
  for (const failure of totals.rejected.slice(0, 50))
    console.log(`  - ${failure.name}: ${failure.reason}`);
  if (totals.rejected.length > 50) console.log(`  … and ${totals.rejected.length - 50} more`);
  console.log(`time: ${seconds.toFixed(2)} s`);
  return totals.written + totals.deleted > 0 ? 0 : 1;
}

/** Finds the queue holding a job id (ids are unique across queues). */
async function findQueue(queues: JobQueues, jobId: string): Promise<QueueName | undefined> {
  for (const name of QUEUE_NAMES) if (await queues.queues[name].getJob(jobId)) return name;
  return undefined;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      follow: { type: 'boolean', default: false },
      reindex: { type: 'boolean', default: false },
      format: { type: 'string' },
      'job-records': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || (positionals.length === 0 && !values.reindex)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  if (!config.redisUrl) {
    console.error(
      'REDIS_URL is not set: the enqueue CLI needs the queue (use `npm run ingest` without one)',
    );
    return 2;
  }
  const jobRecords = Number(values['job-records'] ?? config.worker.jobRecords);
  if (!Number.isInteger(jobRecords) || jobRecords < 1) {
    console.error('--job-records must be a positive integer');
    return 2;
  }
  const queues = new JobQueues(config.redisUrl, config.worker);
  // health() waits a couple of seconds for the connection; a loaded machine may need more.
  let reachable = false;
  for (let attempt = 0; attempt < 5 && !reachable; attempt += 1)
    reachable = (await queues.health()).ok;
  if (!reachable) {
    await queues.close();
    console.error('the queue (REDIS_URL) is not reachable');
    return 1;
  }
  const followers = new Map<QueueName, JobFollower>();
  const followerOf = async (name: QueueName): Promise<JobFollower> => {
    let follower = followers.get(name);
    if (!follower) {
      follower = new JobFollower(queues.queues[name], config.redisUrl!);
      await follower.ready();
      followers.set(name, follower);
    }
    return follower;
  };
  const totals: Totals = {
    jobs: 0,
    finished: 0,
    failed: [],
    read: 0,
    written: 0,
    deleted: 0,
    rejected: [],
  };
  const bars = createBars(values.quiet);
  const started = performance.now();
  const endings: Promise<void>[] = [];
  const track = (follower: JobFollower, jobId: string): void => {
    totals.jobs += 1;
    bars.update(totals);
    endings.push(
      follower.follow(jobId).then((ending) => {
        addEnding(totals, ending ?? { jobId, state: 'failed', reason: 'no such job in the queue' });
        bars.update(totals);
      }),
    );
  };
  const unreadable: { name: string; reason: string }[] = [];
  try {
    if (values.follow) {
      for (const jobId of positionals) {
        const name = await findQueue(queues, jobId);
        if (!name) {
          totals.jobs += 1;
          addEnding(totals, { jobId, state: 'failed', reason: 'no such job in any queue' });
          continue;
        }
        track(await followerOf(name), jobId);
      }
    } else if (values.reindex) {
      track(await followerOf('reindex'), await queues.enqueue('reindex', {}));
    } else {
      const follower = await followerOf('ingest');
      const files: string[] = [];
      for (const path of positionals) {
        try {
          files.push(...(await listFiles(path)));
        } catch (error) {
          unreadable.push({
            name: path,
            reason: `cannot read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
          });
        }
      }
      const documents = readDocuments(files, {
        format: values.format as SourceFormat | undefined,
        chunkLines: jobRecords,
        onUnreadable: (name, reason) => unreadable.push({ name, reason }),
      });
      for await (const batch of groupJobs(documents, jobRecords))
        track(follower, await queues.enqueue('ingest', { documents: batch }));
    }
    await Promise.all(endings);
  } finally {
    bars.stop();
    for (const follower of followers.values()) await follower.close();
    await queues.close();
  }
  totals.rejected.unshift(...unreadable);
  return printSummary(totals, (performance.now() - started) / 1000);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('enqueue failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
