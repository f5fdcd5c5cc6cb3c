/**
 * The fault suite's own Redis and Elasticsearch: started with scripts/services.sh in a run
 * folder of their own (CAIRN_RUN) on free ports, reusing the unpacked distributions, so that
 * the suite can stop and start them while other suites keep using the shared instances.
 * Data survives a stop: a restarted Redis reloads its append-only file, a restarted engine its
 * indices, as in production.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../../scripts/bench/api-process.js';

const run = promisify(execFile);

export type DedicatedService = 'redis' | 'elasticsearch';

/** Seconds a dedicated service may take to become healthy (an engine start on a busy machine). */
const START_TIMEOUT_SECONDS = 300;

/** A set of dedicated instances in one run folder, stopped and removed by `close()`. */
export class DedicatedServices {
  private readonly runDirectory = mkdtempSync(join(tmpdir(), 'cairn-faults-run-'));
  private readonly started = new Set<DedicatedService>();

  private constructor(private readonly ports: Record<string, string>) {}

  /** Reserves free loopback ports for every service (nothing starts yet). */
  static async create(): Promise<DedicatedServices> {
    const [redis, esHttp, esTransport] = [
      await findFreePort(),
      await findFreePort(),
      await findFreePort(),
    ];
    return new DedicatedServices({
      CAIRN_REDIS_PORT: String(redis),
      CAIRN_ES_HTTP_PORT: String(esHttp),
      CAIRN_ES_TRANSPORT_PORT: String(esTransport),
    });
  }

  /** The URL a service answers on (once started). */
  url(service: DedicatedService): string {
    return service === 'redis'
      ? `redis://127.0.0.1:${this.ports.CAIRN_REDIS_PORT}`
      : `http://127.0.0.1:${this.ports.CAIRN_ES_HTTP_PORT}`;
  }

  /** Starts (or restarts) a service and waits until it is healthy; returns its URL. */
  async start(service: DedicatedService): Promise<string> {
    this.started.add(service);
    await this.servicesScript('start', service);
    return this.url(service);
  }

  /** Stops a service (graceful, then SIGKILL after the script's grace period). */
  async stop(service: DedicatedService): Promise<void> {
    await this.servicesScript('stop', service);
  }

  /** Stops everything started here and removes the run folder. */
  async close(): Promise<void> {
    for (const service of this.started) await this.stop(service).catch(() => undefined);
    // An engine that was just killed may still be closing files in its data folder.
    rmSync(this.runDirectory, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  private async servicesScript(action: 'start' | 'stop', service: DedicatedService): Promise<void> {
    try {
      await run('bash', ['scripts/services.sh', action, service], {
        env: {
          ...process.env,
          ...this.ports,
          CAIRN_RUN: this.runDirectory,
          CAIRN_START_TIMEOUT: String(START_TIMEOUT_SECONDS),
        },
        timeout: (START_TIMEOUT_SECONDS + 60) * 1000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(
        `scripts/services.sh ${action} ${service} failed for the fault suite's own instance` +
          ` (run folder ${this.runDirectory}): ${stderr?.trim().slice(-3000) ?? String(error)}`,
        { cause: error },
      );
    }
  }
}
