/**
 * A worker started with a bad configuration says what is wrong on stderr, without a stack
 * trace, and exits 1 before it connects to anything (as the API process does).
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** Runs the worker with exactly these settings (and PATH); resolves with its exit and output. */
async function runWorker(
  settings: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/worker/main.ts'], {
    env: { PATH: process.env.PATH ?? '', ...settings },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Whether the text holds a JavaScript stack frame ("    at fn (file:line:col)"). */
const hasStack = (text: string): boolean => /^\s+at .+:\d+:\d+\)?$/m.test(text);

describe('worker start-up with a bad configuration', function () {
  this.timeout(90_000);

  it('names the invalid setting and exits 1 without a stack trace', async () => {
    const { code, stdout, stderr } = await runWorker({
      // Nothing listens there: the worker must stop before trying.
      REDIS_URL: 'redis://127.0.0.1:1',
      WORKER_CONCURRENCY: 'many',
    });
    assert.equal(code, 1, stdout + stderr);
    assert.match(stderr, /^Invalid configuration:\n {2}- WORKER_CONCURRENCY/m);
    assert.equal(hasStack(stderr + stdout), false, stderr);
  });

  it('says REDIS_URL is missing and exits 1 without a stack trace', async () => {
    const { code, stdout, stderr } = await runWorker({});
    assert.equal(code, 1, stdout + stderr);
    assert.match(stderr, /REDIS_URL is not set: the worker needs a queue/);
    assert.equal(hasStack(stderr + stdout), false, stderr);
  });
});
