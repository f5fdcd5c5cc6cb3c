/** Command-line options of `npm run cluster-check`. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS, type Ports } from './topology.js';

export interface ClusterOptions {
  records: number;
  recordsPerRequest: number;
  writers: number;
  pageSize: number;
  /** Most ingest jobs waiting in the queue before the writers hold back. */
  backlogJobs: number;
  discoveryClients: number;
  /** Share of the records indexed at which the engine node, an API and a worker are killed. */
  killAt: { engine: number; api: number; worker: number };
  /** Milliseconds a failover window stays open after the killed component is back. */
  graceMs: number;
  runDirectory: string;
  out: string;
  ports: Ports;
  seed: number;
}

export const USAGE = `usage: npm run cluster-check -- [--records 100000] [--records-per-request 500]
  [--writers 2] [--page-size 1000] [--backlog-jobs 4] [--discovery-clients 2]
  [--run-dir DIR] [--out bench/results]
Ports: CAIRN_CLUSTER_LB_PORT [8090] (APIs on +1, +2), CAIRN_CLUSTER_ENGINE_LB_PORT [9260],
CAIRN_CLUSTER_HTTP_BASE [9260], CAIRN_CLUSTER_TRANSPORT_BASE [9360], CAIRN_CLUSTER_REDIS_PORT [6391].`;

function integer(value: string, name: string, min = 1): number {
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(number) || number < min)
    throw new Error(`--${name} must be an integer ≥ ${min}`);
  return number;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): ClusterOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      records: { type: 'string', default: '100000' },
      'records-per-request': { type: 'string', default: '500' },
      writers: { type: 'string', default: '2' },
      'page-size': { type: 'string', default: '1000' },
      'backlog-jobs': { type: 'string', default: '4' },
      'discovery-clients': { type: 'string', default: '2' },
      'run-dir': { type: 'string' },
      out: { type: 'string', default: 'bench/results' },
    },
  });
  const port = (name: string, fallback: number) =>
    env[name] ? integer(env[name], name.toLowerCase()) : fallback;
  const cache = env.CAIRN_CACHE ?? join(homedir(), '.cache', 'cairn');
  return {
    records: integer(values.records, 'records', 10),
    recordsPerRequest: integer(values['records-per-request'], 'records-per-request'),
    writers: integer(values.writers, 'writers'),
    pageSize: integer(values['page-size'], 'page-size'),
    backlogJobs: integer(values['backlog-jobs'], 'backlog-jobs'),
    discoveryClients: integer(values['discovery-clients'], 'discovery-clients', 0),
    killAt: { engine: 0.2, api: 0.45, worker: 0.7 },
    graceMs: 15_000,
    runDirectory: resolve(values['run-dir'] ?? join(cache, 'cluster')),
    out: resolve(values.out),
    ports: {
      balancer: port('CAIRN_CLUSTER_LB_PORT', DEFAULT_PORTS.balancer),
      engineBalancer: port('CAIRN_CLUSTER_ENGINE_LB_PORT', DEFAULT_PORTS.engineBalancer),
      httpBase: port('CAIRN_CLUSTER_HTTP_BASE', DEFAULT_PORTS.httpBase),
      transportBase: port('CAIRN_CLUSTER_TRANSPORT_BASE', DEFAULT_PORTS.transportBase),
      redis: port('CAIRN_CLUSTER_REDIS_PORT', DEFAULT_PORTS.redis),
    },
    seed: 2603,
  };
}
