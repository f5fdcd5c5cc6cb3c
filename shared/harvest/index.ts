/**
 * Harvesting remote catalogues (see README "Harvesting and CSW-T"): source definitions, the
 * source store with ownership, one adapter per protocol, and the run itself. The worker's
 * harvest job and the API's embedded-mode runs both call `harvestSource`.
 */
import type { AuthConfig, HarvestConfig } from '../config/index.js';
import { NotFoundError } from '../errors/index.js';
import { createTokenClient, type TokenClient } from '../auth/token-exchange.js';
import type { Logger } from '../logging/index.js';
import type { SearchBackend } from '../search/backend.js';
import { AddressPolicy } from './address-policy.js';
import { resolveSource, type HarvestSourceDefinition } from './harvest-source.js';
import { runHarvest, type HarvestOutcome } from './run-harvest.js';
import { RunDeadlines } from './run-deadlines.js';
import { SourceClient } from './source-client.js';
import type { HarvestStore } from './harvest-store.js';

export * from './harvest-source.js';
export { AddressPolicy, classifyAddress } from './address-policy.js';
export { HarvestSourceError, SourceClient } from './source-client.js';
export { RedisHarvestStore } from './redis-harvest-store.js';
export { SourceExistsError } from './harvest-store.js';
export type { HarvestRunSummary, HarvestStore, StoredSource } from './harvest-store.js';
export { runHarvest } from './run-harvest.js';
export { HarvestCancelledError, HarvestInterruptedError, RunDeadlines } from './run-deadlines.js';
export type { HarvestDeadLetter, HarvestOutcome } from './run-harvest.js';

/**
 * The harvest settings when none are given: public addresses only, 64 MiB, 60 s a request,
 * 2 minutes a page, an hour a run.
 */
export const DEFAULT_HARVEST_CONFIG: HarvestConfig = Object.freeze({
  allowedAddresses: [],
  maxBytes: 64 * 1024 * 1024,
  timeoutMs: 60_000,
  pageTimeoutMs: 120_000,
  runTimeoutMs: 3_600_000,
});

/** The catalogue's client at the identity provider for protected sources, when configured. */
export function createHarvestTokenClient(
  auth: AuthConfig | undefined,
  logger?: Logger,
): TokenClient | undefined {
  if (!auth?.provider) return undefined;
  return createTokenClient(auth.provider.tokenUrl, auth.exchange, {
    ...(logger === undefined ? {} : { logger }),
    clockToleranceSeconds: auth.provider.clockToleranceSeconds,
  });
}

export interface HarvestRequest {
  /** A registered source (its state and ownership are used and updated)… */
  sourceId?: string;
  /** …or a one-off definition (always a full run that deletes nothing). */
  inline?: HarvestSourceDefinition;
  full?: boolean;
  backend: SearchBackend;
  store: HarvestStore;
  /** The identity provider; protected sources fail without it. */
  auth?: AuthConfig;
  /** Reachable addresses, size and time limits; default DEFAULT_HARVEST_CONFIG. */
  harvest?: HarvestConfig;
  batchSize: number;
  jobId?: string;
  logger?: Logger;
  /** Stops the run at once when aborted (the worker shutting down); its reason is thrown. */
  signal?: AbortSignal;
}

/** Harvests a registered or one-off source. NotFoundError when the source is not registered. */
export async function harvestSource(request: HarvestRequest): Promise<HarvestOutcome> {
  const registered = request.sourceId ? await request.store.get(request.sourceId) : null;
  if (request.sourceId && !registered)
    throw new NotFoundError(`No harvest source "${request.sourceId}"`);
  const definition = registered?.definition ?? request.inline;
  if (!definition) throw new NotFoundError('a harvest needs a source id or a source');
  const source = resolveSource(definition);
  const settings = request.harvest ?? DEFAULT_HARVEST_CONFIG;
  const deadlines = new RunDeadlines({
    sourceId: definition.id,
    runTimeoutMs: settings.runTimeoutMs,
    pageTimeoutMs: settings.pageTimeoutMs,
    signal: request.signal,
  });
  const client = new SourceClient({
    signal: () => deadlines.signal(),
    auth: source.auth,
    tokens: createHarvestTokenClient(request.auth, request.logger),
    maxBytes: settings.maxBytes,
    timeoutMs: settings.timeoutMs,
    policy: new AddressPolicy(settings.allowedAddresses),
  });
  return runHarvest({
    source,
    backend: request.backend,
    client,
    store: registered ? request.store : undefined,
    full: request.full,
    batchSize: request.batchSize,
    maxBytes: settings.maxBytes,
    jobId: request.jobId,
    logger: request.logger,
    deadlines,
  });
}
