// Starts a TypeScript worker thread from source: Node 20 does not pass tsx's loader hooks on
// to worker threads, so the worker registers them before importing its real entry point.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.tsxEntry);
