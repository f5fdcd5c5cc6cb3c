/**
 * The worker's Prometheus metrics (prom-client): jobs by outcome, records written, rejected
 * and deleted, job duration, and the queues' jobs by state (read from Redis at each scrape, so
 * the depth is the queue's, whichever worker is asked).
 */
import type { JobType, Queue } from 'bullmq';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobResult } from '../queue/job-payloads.js';

/** Job duration buckets (seconds): 10 ms to 30 minutes (reindex and harvest jobs are long). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800];

/** The BullMQ job states reported per queue. */
const QUEUE_STATES: JobType[] = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'failed',
  'completed',
];

/** How a performed job ended for the metrics. */
export type JobOutcome = 'completed' | 'failed' | 'retrying';

export class WorkerMetrics {
  readonly registry: Registry;
  readonly jobs: Counter<'queue' | 'outcome'>;
  readonly records: Counter<'queue' | 'outcome'>;
  readonly jobDuration: Histogram<'queue' | 'outcome'>;
  private readonly queues: Queue[] = [];

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    this.jobs = new Counter({
      name: 'cairn_worker_jobs_total',
      help: 'Jobs this worker performed, by queue and outcome (completed, failed, retrying)',
      labelNames: ['queue', 'outcome'],
      registers: [registry],
    });
    this.records = new Counter({
      name: 'cairn_worker_records_total',
      help: 'Records of completed jobs, by queue and outcome (written, rejected, deleted)',
      labelNames: ['queue', 'outcome'],
      registers: [registry],
    });
    this.jobDuration = new Histogram({
      name: 'cairn_worker_job_duration_seconds',
      help: 'Time a job took, by queue and outcome',
      labelNames: ['queue', 'outcome'],
      buckets: JOB_BUCKETS,
      registers: [registry],
    });
    const queues = this.queues;
    new Gauge({
      name: 'cairn_queue_jobs',
      help: 'Jobs in each queue by state (waiting + delayed + prioritized is the depth)',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const queue of queues) {
          const counts = await queue.getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES)
            this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
  }

  /** Adds queues whose depth is reported at each scrape. */
  watchQueues(queues: Queue[]): void {
    this.queues.push(...queues);
  }

  /** Records one performed job: its outcome, duration and (when completed) its records. */
  recordJob(queue: string, outcome: JobOutcome, seconds: number, result?: JobResult): void {
    this.jobs.inc({ queue, outcome });
    this.jobDuration.observe({ queue, outcome }, seconds);
    if (!result) return;
    this.records.inc({ queue, outcome: 'written' }, result.written);
    this.records.inc({ queue, outcome: 'rejected' }, result.rejected);
    this.records.inc({ queue, outcome: 'deleted' }, result.deleted);
  }
}
