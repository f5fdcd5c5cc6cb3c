/**
 * Starts a worker thread on a module beside the caller: the compiled `.js` file when the caller
 * runs from `dist/`, or the TypeScript source through tsx-worker.mjs, which registers tsx's
 * loader hooks (Node 20 does not pass them on to worker threads).
 *
 * The thread gets none of the parent's command-line preloads (`execArgv: []`): a parent started
 * with `--import some-hook.ts` (the soak's memory reporter) would otherwise have each thread
 * import that TypeScript file before tsx is registered there, and fail to start.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** `callerUrl` is the caller's `import.meta.url`; `name` the sibling module without extension. */
export function startSiblingWorker(callerUrl: string, name: string, workerData?: object): Worker {
  const script = new URL(`./${name}${extname(fileURLToPath(callerUrl))}`, callerUrl);
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData, execArgv: [] });
  return new Worker(new URL('./tsx-worker.mjs', import.meta.url), {
    workerData: { ...workerData, tsxEntry: script.href },
    execArgv: [],
  });
}
