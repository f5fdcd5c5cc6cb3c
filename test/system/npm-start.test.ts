import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../support/fixtures.js';

/** A free loopback port, found by binding port 0. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitUntilReady(url: string, child: ChildProcess, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`not ready after ${seconds} s`);
}

describe('the README run command (npm start: build, sample records, listen)', function () {
  this.timeout(600_000);
  let directory: string;
  let child: ChildProcess;
  let base: string;
  let port: number;
  let output = '';

  /** Runs `npm start` on the test's database and port; resolves once /readyz answers. */
  async function start(): Promise<void> {
    output = '';
    child = spawn('npm', ['start', '--silent'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        SQLITE_PATH: join(directory, 'cairn.sqlite'),
        LOG_LEVEL: 'warn',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitUntilReady(`${base}/readyz`, child, 540).catch((error: Error) => {
      throw new Error(`${error.message}\n${output}`);
    });
  }

  async function stop(): Promise<unknown> {
    process.kill(-child.pid!, 'SIGTERM');
    return new Promise((resolve) =>
      child.once('exit', (exitCode, signal) => resolve(exitCode ?? signal)),
    );
  }

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'cairn-start-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await start();
  });

  after(async () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid, 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(directory, { recursive: true, force: true });
  });

  it('loads the sample records into the empty database', () => {
    expect(output).to.match(/loaded 300 sample records/);
  });

  it('answers q + bbox + datetime with an exact numberMatched, five features and a next link with limit and offset', async () => {
    const query =
      'q=climate,land,ocean,river,glacier&bbox=-180,-90,180,90&datetime=1990-01-01T00:00:00Z/..';
    const all = (await (
      await fetch(`${base}/catalogue/collections/metadata:main/items?${query}&limit=1000`)
    ).json()) as {
      numberMatched: number;
      features: unknown[];
    };
    expect(all.numberMatched).to.equal(all.features.length);
    expect(all.numberMatched).to.be.greaterThan(10);
    const page = (await (
      await fetch(`${base}/catalogue/collections/metadata:main/items?${query}&limit=5&offset=5`)
    ).json()) as {
      numberMatched: number;
      features: unknown[];
      links: { rel: string; href: string }[];
    };
    expect(page.numberMatched).to.equal(all.numberMatched);
    expect(page.features).to.have.length(5);
    const next = new URL(page.links.find((link) => link.rel === 'next')!.href);
    expect(next.searchParams.get('limit')).to.equal('5');
    expect(next.searchParams.get('offset')).to.equal('10');
  });

  it('shuts down gracefully on SIGTERM', async () => {
    expect([0, 'SIGTERM']).to.include(await stop());
  });

  it('starts again without rebuilding dist/ and says why it loads no sample records', async () => {
    await start();
    expect(output).to.not.match(/built \d+ files/);
    expect(output).to.match(/sample records not loaded: .* already holds 300 records/);
    const page = (await (
      await fetch(`${base}/catalogue/collections/metadata:main/items?limit=1`)
    ).json()) as { numberMatched: number };
    expect(page.numberMatched).to.equal(300);
    expect([0, 'SIGTERM']).to.include(await stop());
  });
});
