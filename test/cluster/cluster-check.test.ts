/**
 * The reduced cluster check, as CI runs it: `npm run cluster-check -- --records 5000` with the
 * same topology and the same three kills as the full one (3-node OpenSearch, HAProxy, Redis,
 * two API replicas, two workers), on ports and in a run folder of its own so that it disturbs
 * no other suite. Each of the check's verdicts is one test here; the full figures are in the
 * suite's log and its JSON result.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarvestCheck, IndexingCheck, RequestCheck } from '../../scripts/cluster/checks.js';

const RECORDS = 5000;

interface Result {
  passed: boolean;
  resultLine: string;
  topology: {
    layout: { shards: number; replicas: number; nodes: number; status: string };
    final: { status: string; nodes: number; unassignedShards: number };
  };
  indexing: IndexingCheck;
  harvests: HarvestCheck[];
  requests: RequestCheck;
  faults: { what: string; target: string; backAt?: number; problem?: string }[];
  session: { shared: boolean; problem?: string };
  source: { harvested: boolean; written?: number; expected: number; problem?: string };
}

describe(`cluster check, reduced (${RECORDS} records, three kills)`, function () {
  this.timeout(900_000);
  const directory = mkdtempSync(join(tmpdir(), 'cairn-cluster-ci-'));
  let result: Result;
  let output = '';

  before(async () => {
    const code = await new Promise<number>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/cluster-check.ts',
          '--records',
          String(RECORDS),
          '--run-dir',
          join(directory, 'run'),
          '--out',
          directory,
        ],
        {
          env: {
            ...process.env,
            // Ports of its own, beside a full check someone may be running by hand.
            CAIRN_CLUSTER_LB_PORT: '18090',
            CAIRN_CLUSTER_ENGINE_LB_PORT: '19260',
            CAIRN_CLUSTER_HTTP_BASE: '19260',
            CAIRN_CLUSTER_TRANSPORT_BASE: '19360',
            CAIRN_CLUSTER_REDIS_PORT: '16391',
          },
          timeout: 840_000,
          maxBuffer: 64 * 1024 * 1024,
        },
        (error) => resolve(error ? ((error as { code?: number }).code ?? 1) : 0),
      );
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });
    console.log(output.trimEnd().split('\n').slice(-30).join('\n'));
    const file = readdirSync(directory).find((name) => name.startsWith('cluster-check-'));
    if (!file)
      throw new Error(`the cluster check wrote no result (exit ${code}):\n${output.slice(-4000)}`);
    result = JSON.parse(readFileSync(join(directory, file), 'utf8')) as Result;
  });

  after(() => rmSync(directory, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 }));

  it('lays the index out on the 3-node cluster: 3 shards, 1 replica, green at the end', () => {
    expect(result.topology.layout).to.include({ shards: 3, replicas: 1, nodes: 3 });
    expect(result.topology.final).to.deep.equal({ status: 'green', nodes: 3, unassignedShards: 0 });
  });

  it('killed an engine data node, an API replica and a worker during the ingest, and an API replica during the harvest; each came back', () => {
    expect(result.faults.map((fault) => fault.what)).to.deep.equal([
      'engine node',
      'API replica',
      'worker',
      'API replica',
    ]);
    for (const fault of result.faults) {
      expect(fault.problem, `${fault.what} ${fault.target}`).to.equal(undefined);
      expect(fault.backAt, `${fault.what} ${fault.target} back`).to.be.a('number');
    }
  });

  it('indexed every accepted record exactly once (count and ids)', () => {
    expect(result.indexing).to.deep.include({
      accepted: RECORDS,
      indexed: RECORDS,
      lost: 0,
      duplicates: 0,
      unexpected: 0,
    });
  });

  for (const protocol of ['csw', 'stac'])
    it(`harvested the settled catalogue through ${protocol.toUpperCase()} paging, every record exactly once`, () => {
      const harvest = result.harvests.find((item) => item.protocol === protocol)!;
      expect(harvest).to.deep.include({
        distinct: RECORDS,
        seen: RECORDS,
        missed: 0,
        repeated: 0,
        foreign: 0,
      });
    });

  it('failed no request, except 503s with Retry-After inside the failover windows', () => {
    expect(result.requests.failed, result.requests.examples.join('\n')).to.equal(0);
    // That client traffic ran through the kills, not its volume: the reduced run sends 98-107
    // requests on this machine (six fresh-clone runs on 2026-11-27), so a floor of 100 failed
    // one run in six.
    expect(result.requests.total).to.be.greaterThan(50);
  });

  it('honours an admin session made on one replica on the other', () => {
    expect(result.session.shared, result.session.problem).to.equal(true);
  });

  it('runs a harvest source registered through one replica on a worker', () => {
    expect(result.source.harvested, result.source.problem).to.equal(true);
    expect(result.source.written).to.equal(result.source.expected);
  });

  it('ends with the one-line verdict', () => {
    expect(result.resultLine).to.match(
      /^cluster: 5000 accepted, 5000 indexed, 0 lost, 0 duplicates, .*: PASS$/,
    );
    expect(output.trimEnd().split('\n').at(-1)).to.equal(result.resultLine);
    expect(result.passed).to.equal(true);
  });
});
