/**
 * A short run of `npm run soak` (10 s on SQLite with real Keycloak tokens): the script starts
 * its API, drives queries and writes, and reports zero errors, latency windows and memory
 * samples in its result file. The real soak (10 minutes) is not part of the test suite.
 */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireKeycloak } from '../integration/keycloak/keycloak-support.js';

const run = promisify(execFile);

interface SoakResult {
  errors: number;
  requests: number;
  writes: number;
  latency: { first: { requests: number; p95Ms: number }; last: { requests: number } };
  memorySamples: { api: { rssMiB: number; heapUsedMiB?: number }[] };
}

describe('npm run soak (10 s smoke run)', function () {
  this.timeout(180_000);
  const out = mkdtempSync(join(tmpdir(), 'cairn-soak-smoke-'));

  before(requireKeycloak);
  after(() => rmSync(out, { recursive: true, force: true }));

  it('runs queries and writes with no error and writes a result with latency and memory', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/soak.ts',
        '--duration',
        '10s',
        '--records',
        '200',
        '--concurrency',
        '2',
        '--sample',
        '1',
        '--out',
        out,
      ],
      { env: { ...process.env, LOG_LEVEL: 'warn' }, timeout: 150_000 },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(
        `the soak failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
      );
    });
    assert.match(stdout, /PASS: no errors/);
    const [file] = readdirSync(out).filter((name) => name.startsWith('soak-sqlite-'));
    assert.ok(file, `no result file in ${out}`);
    const result = JSON.parse(readFileSync(join(out, file), 'utf8')) as SoakResult;
    assert.equal(result.errors, 0);
    assert.ok(
      result.requests > 0 && result.writes > 0,
      `${result.requests} queries, ${result.writes} writes`,
    );
    assert.ok(result.latency.first.requests > 0 && result.latency.last.requests > 0);
    assert.ok(result.latency.first.p95Ms > 0);
    assert.ok(result.memorySamples.api.length >= 2, 'memory sampled over the run');
    assert.ok(
      result.memorySamples.api.every(
        (sample) => sample.rssMiB > 0 && (sample.heapUsedMiB ?? 0) > 0,
      ),
    );
  });
});
