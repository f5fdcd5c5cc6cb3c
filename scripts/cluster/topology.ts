/**
 * The cluster's pieces and how they are started, killed and brought back: the infrastructure
 * (three OpenSearch nodes, HAProxy, Redis) through `scripts/services.sh cluster`, the API
 * replicas and workers as Node processes (scripts/processes/cairn-process.ts) on the ports
 * deploy/haproxy/haproxy.cfg names.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CairnProcess } from '../processes/cairn-process.js';
import { sleep } from './client.js';

const run = promisify(execFile);
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ports of one cluster set (defaults of scripts/services/cluster.sh). */
export interface Ports {
  balancer: number;
  engineBalancer: number;
  httpBase: number;
  transportBase: number;
  redis: number;
}

export const DEFAULT_PORTS: Ports = {
  balancer: 8090,
  engineBalancer: 9260,
  httpBase: 9260,
  transportBase: 9360,
  redis: 6391,
};

export type Infrastructure = 'redis' | 'osnode1' | 'osnode2' | 'osnode3' | 'balancer';
export const ENGINE_NODES = ['osnode1', 'osnode2', 'osnode3'] as const;

/** Seconds an engine node may take to start on a busy machine. */
const START_TIMEOUT_SECONDS = 420;

export class Cluster {
  readonly apiPorts: [number, number];
  readonly balancerUrl: string;
  readonly engineUrl: string;
  readonly redisUrl: string;

  constructor(
    readonly runDirectory: string,
    readonly ports: Ports = DEFAULT_PORTS,
  ) {
    mkdirSync(runDirectory, { recursive: true });
    this.apiPorts = [ports.balancer + 1, ports.balancer + 2];
    this.balancerUrl = `http://127.0.0.1:${ports.balancer}`;
    this.engineUrl = `http://127.0.0.1:${ports.engineBalancer}`;
    this.redisUrl = `redis://127.0.0.1:${ports.redis}`;
  }

  nodeUrl(node: (typeof ENGINE_NODES)[number]): string {
    return `http://127.0.0.1:${this.ports.httpBase + Number(node.slice(-1))}`;
  }

  /** Runs `scripts/services.sh cluster <action> <services…>` for this set. */
  async services(action: 'start' | 'stop' | 'status', ...names: Infrastructure[]): Promise<string> {
    try {
      const { stdout } = await run('bash', ['scripts/services.sh', 'cluster', action, ...names], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          CAIRN_RUN: this.runDirectory,
          CAIRN_CLUSTER_REDIS_PORT: String(this.ports.redis),
          CAIRN_CLUSTER_LB_PORT: String(this.ports.balancer),
          CAIRN_CLUSTER_ENGINE_LB_PORT: String(this.ports.engineBalancer),
          CAIRN_CLUSTER_HTTP_BASE: String(this.ports.httpBase),
          CAIRN_CLUSTER_TRANSPORT_BASE: String(this.ports.transportBase),
          CAIRN_START_TIMEOUT: String(START_TIMEOUT_SECONDS),
        },
        timeout: (START_TIMEOUT_SECONDS + 120) * 1000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(
        `scripts/services.sh cluster ${action} ${names.join(' ')} failed: ${stderr?.trim().slice(-3000) ?? String(error)}`,
        { cause: error },
      );
    }
  }

  /** The last lines of each engine node's own log (why a node stopped), for a failed start. */
  engineLogTails(lines = 40): string {
    return ENGINE_NODES.map((node) => {
      const file = join(this.runDirectory, node, 'logs', 'cairn-cluster-check.log');
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '(no log)';
      return `---- ${file} ----\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`;
    }).join('\n');
  }

  /** SIGKILLs an infrastructure process by its pid file (the engine's JVM, not a launcher). */
  kill(name: Infrastructure): number {
    const pid = Number(readFileSync(join(this.runDirectory, name, `${name}.pid`), 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    return pid;
  }

  /** The engine node that is not the elected cluster manager, highest number first. */
  async dataNodeToKill(): Promise<(typeof ENGINE_NODES)[number]> {
    const response = await fetch(`${this.engineUrl}/_cat/cluster_manager?format=json`);
    const [manager] = (await response.json()) as { node: string }[];
    const candidates = ENGINE_NODES.filter((node) => `node-${node.slice(-1)}` !== manager?.node);
    const last = candidates.at(-1);
    if (last === undefined) throw new Error('no engine node to kill');
    return last;
  }

  /** Waits until the cluster is green with all three nodes (replicas recovered). */
  async waitGreen(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const health = await fetch(
        `${this.engineUrl}/_cluster/health?wait_for_status=green&wait_for_nodes=3&timeout=10s`,
      ).then(
        (response) => response.json() as Promise<{ status?: string; number_of_nodes?: number }>,
        (): { status?: string; number_of_nodes?: number } => ({}),
      );
      if (health.status === 'green' && health.number_of_nodes === 3) return;
      await sleep(1000);
    }
    throw new Error('the engine cluster did not turn green in time');
  }
}

/** One API replica on its fixed port (the balancer's configuration names it). */
export class ApiReplica {
  process: CairnProcess | undefined;
  starts = 0;

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly environment: Record<string, string>,
    private readonly logDirectory: string,
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the process and waits until /readyz answers 200. */
  async start(timeoutMs = 180_000): Promise<void> {
    this.starts += 1;
    const api = CairnProcess.start(
      this.name,
      'services/api/main.ts',
      { ...this.environment, HOST: '127.0.0.1', PORT: String(this.port) },
      join(this.logDirectory, `${this.name}.log`),
    );
    this.process = api;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!api.running) throw new Error(`${this.name} exited while starting:\n${api.logTail()}`);
      const ready = await fetch(`${this.origin}/readyz`, {
        signal: AbortSignal.timeout(5000),
      }).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) return;
      await sleep(250);
    }
    await api.stop('SIGKILL');
    throw new Error(`${this.name} did not become ready in time:\n${api.logTail()}`);
  }

  async kill(): Promise<void> {
    await this.process?.stop('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.process?.stop('SIGTERM');
  }
}

/** One worker process. */
export class WorkerReplica {
  process: CairnProcess | undefined;
  starts = 0;

  constructor(
    readonly name: string,
    private readonly environment: Record<string, string>,
    private readonly logDirectory: string,
  ) {}

  start(): void {
    this.starts += 1;
    this.process = CairnProcess.start(
      this.name,
      'services/worker/main.ts',
      this.environment,
      join(this.logDirectory, `${this.name}.log`),
    );
  }

  async kill(): Promise<void> {
    await this.process?.stop('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.process?.stop('SIGTERM');
  }
}
