/**
 * Harvest commands shared by the admin source endpoints and the CSW Harvest operation:
 * register (and schedule) a source, unregister it, and run it — enqueued as a `harvest` job in
 * scaled mode, performed at once through the same shared/harvest code in embedded mode (and
 * then recorded in the ingest log as a job of queue "harvest").
 */
import { randomUUID } from 'node:crypto';
import { CairnError, InvalidParameterError, NotFoundError } from '../../../shared/errors/index.js';
import {
  harvestSource,
  type HarvestOutcome,
  type HarvestSourceDefinition,
  type HarvestStore,
  type StoredSource,
} from '../../../shared/harvest/index.js';
import type { Logger } from '../../../shared/logging/index.js';
import { openEmbeddedHarvestStore } from '../../../shared/search/open-stores.js';
import type { CommandContext } from './context.js';

/** What the commands work with; one per app. */
export interface HarvestContext extends CommandContext {
  store: () => HarvestStore;
  logger: Logger;
  /** Sources being harvested in this process (embedded mode runs one at a time per source). */
  running: Set<string>;
}

/** A run: performed now (embedded mode) or queued as a job (scaled mode). */
export type HarvestRun =
  { mode: 'applied'; jobId: string; outcome: HarvestOutcome } | { mode: 'queued'; jobId: string };

/** A run of this source is already in progress (409). */
export class HarvestRunningError extends CairnError {
  constructor(id: string) {
    super('CONFLICT', 409, `a harvest of source "${id}" is already running`, true);
  }
}

/** The scheduler id of a source's repeatable harvest. */
function schedulerId(id: string): string {
  return `harvest-source:${id}`;
}

/** Refuses settings this deployment cannot honour, before anything is stored. */
function checkDeployable(context: HarvestContext, definition: HarvestSourceDefinition): void {
  const authType = definition.auth?.type ?? 'none';
  if (authType !== 'none' && !context.config.auth.exchange)
    throw new InvalidParameterError(
      'auth',
      `auth "${authType}" needs the catalogue's own client credentials (AUTH_EXCHANGE_CLIENT_ID and AUTH_EXCHANGE_CLIENT_SECRET)`,
    );
  if (definition.intervalMinutes !== undefined && !context.queue())
    throw new InvalidParameterError(
      'intervalMinutes',
      'scheduled harvests need the scaled mode (REDIS_URL); run the source on demand instead',
    );
}

/** Creates or removes the source's repeatable harvest job (scaled mode). */
async function schedule(
  context: HarvestContext,
  definition: HarvestSourceDefinition,
): Promise<void> {
  const queue = context.queue();
  if (!queue) return;
  const harvest = queue.queues.harvest;
  if (definition.intervalMinutes === undefined) {
    await harvest.removeJobScheduler(schedulerId(definition.id));
    return;
  }
  await harvest.upsertJobScheduler(
    schedulerId(definition.id),
    { every: definition.intervalMinutes * 60_000 },
    { name: 'harvest', data: { sourceId: definition.id, requestedBy: 'schedule' } },
  );
}

/**
 * Registers a source (`replace`: creates or replaces it, else a taken id is a 409) and
 * (re)schedules it.
 */
export async function registerSource(
  context: HarvestContext,
  definition: HarvestSourceDefinition,
  options: { replace: boolean },
): Promise<{ source: StoredSource; created: boolean }> {
  checkDeployable(context, definition);
  const store = context.store();
  const result = options.replace
    ? await store.put(definition)
    : { source: await store.create(definition), created: true };
  await schedule(context, definition);
  return result;
}

/** Unregisters a source and its schedule; the records it contributed stay. */
export async function unregisterSource(context: HarvestContext, id: string): Promise<void> {
  if (!(await context.store().remove(id))) throw new NotFoundError(`No harvest source "${id}"`);
  await context.queue()?.queues.harvest.removeJobScheduler(schedulerId(id));
}

/** Runs a registered source now (embedded) or enqueues its run (scaled). */
export async function runSource(
  context: HarvestContext,
  id: string,
  options: { full: boolean; requestedBy?: string | undefined },
): Promise<HarvestRun> {
  const store = context.store();
  if (!(await store.get(id))) throw new NotFoundError(`No harvest source "${id}"`);
  const queue = context.queue();
  if (queue) {
    const jobId = await queue.enqueue('harvest', {
      sourceId: id,
      full: options.full,
      ...(options.requestedBy === undefined ? {} : { requestedBy: options.requestedBy }),
    });
    return { mode: 'queued', jobId };
  }
  if (context.running.has(id)) throw new HarvestRunningError(id);
  context.running.add(id);
  const jobId = randomUUID();
  const started = new Date();
  const log = (entry: {
    status: 'completed' | 'failed';
    outcome?: HarvestOutcome;
    error?: string;
  }): Promise<void> =>
    context.ingestLog().record({
      jobId,
      queue: 'harvest',
      status: entry.status,
      attempts: 1,
      read: entry.outcome?.read ?? 0,
      written: entry.outcome?.written ?? 0,
      deleted: entry.outcome?.deleted ?? 0,
      rejected: entry.outcome?.rejected ?? 0,
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started.getTime(),
      ...(options.requestedBy === undefined ? {} : { requestedBy: options.requestedBy }),
      ...(entry.error ? { error: entry.error } : {}),
      failures: entry.outcome
        ? entry.outcome.letters.map((letter) => ({ name: letter.name, reason: letter.reason }))
        : [{ name: 'job', reason: entry.error ?? 'failed' }],
    });
  try {
    const outcome = await harvestSource({
      sourceId: id,
      full: options.full,
      backend: context.backend,
      store,
      auth: context.config.auth,
      harvest: context.config.harvest,
      batchSize: context.config.worker.batchSize,
      jobId,
      logger: context.logger,
    });
    await log({ status: 'completed', outcome });
    return { mode: 'applied', jobId, outcome };
  } catch (error) {
    await log({ status: 'failed', error: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    context.running.delete(id);
  }
}

/** What the harvest commands of one app need; the source store opens on first use. */
export interface HarvestContextDependencies extends CommandContext {
  logger: Logger;
}

/**
 * The harvest context of one app. The source store lives in Redis in scaled mode (where the
 * worker reads it), in the ingest-log SQLite file in embedded mode.
 */
export function createHarvestContext(dependencies: HarvestContextDependencies): HarvestContext {
  let store: HarvestStore | undefined;
  return {
    ...dependencies,
    store: () =>
      (store ??=
        dependencies.queue()?.harvestStore() ??
        openEmbeddedHarvestStore(dependencies.config.worker.ingestLogPath)),
    running: new Set(),
  };
}
