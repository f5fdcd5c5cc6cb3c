/**
 * The engine alone beside a peer comparison: what the engine by itself serves of the search
 * requests Cairn sends it for each query. The requests are captured over HTTP, from a Cairn API
 * process whose engine URL points at a recording proxy, so they are the bytes the API really
 * sends (every round trip a query makes, in order), whatever the protocol in front.
 */
import { execFileSync } from 'node:child_process';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi, stopApi, type ApiProcess } from '../api-process.js';
import type { QueryCase } from '../query-mix.js';

/** One request the API sent the engine while a query was answered. */
export interface EngineCall {
  method: string;
  /** Path and query string under the engine's URL. */
  path: string;
  contentType?: string;
  body: string;
}

/** A proxy in front of the engine that keeps the requests sent while it is recording. */
export interface RecordingProxy {
  origin: string;
  /** Starts a fresh list of calls; returns what was recorded since the last call. */
  take(): EngineCall[];
  close(): Promise<void>;
}

/**
 * Starts a `node:http` proxy on loopback that forwards every request to `engine` and records
 * it (the API's start-up calls included; {@link RecordingProxy.take} separates them).
 */
export async function startRecordingProxy(engine: string): Promise<RecordingProxy> {
  const target = new URL(engine);
  const agent = new Agent({ keepAlive: true });
  let calls: EngineCall[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = incoming.headers['content-type'];
      calls.push({
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        ...(contentType !== undefined && { contentType }),
        body: body.toString('utf8'),
      });
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: target.host },
          agent,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on('error', (error) => outgoing.destroy(error));
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    take() {
      const taken = calls;
      calls = [];
      return taken;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** A query to capture: its name, and how to ask a Cairn API at `origin` (the answer's status). */
export interface CaptureQuery {
  name: string;
  ask: (origin: string) => Promise<number>;
}

/**
 * Sends each query through a Cairn API of its own (built from `repoRoot`, with `environment`)
 * whose engine URL in `variable` points at a recording proxy, twice (the second time is kept:
 * what a warm API sends, without start-up lookups). Returns the engine calls of each query
 * answered 200; `refused` hears of the others.
 */
export async function captureEngineCalls(
  repoRoot: string,
  environment: Record<string, string>,
  variable: string,
  queries: readonly CaptureQuery[],
  refused: (name: string, status: number) => void = () => undefined,
): Promise<Map<string, EngineCall[]>> {
  const engine = environment[variable];
  if (engine === undefined) throw new Error(`captureEngineCalls: ${variable} is not set`);
  const proxy = await startRecordingProxy(engine);
  let api: ApiProcess | undefined;
  try {
    api = await startApi(repoRoot, { ...environment, [variable]: proxy.origin });
    const captured = new Map<string, EngineCall[]>();
    for (const query of queries) {
      await query.ask(api.origin);
      proxy.take();
      const status = await query.ask(api.origin);
      const calls = proxy.take();
      if (status === 200) captured.set(query.name, calls);
      else refused(query.name, status);
    }
    return captured;
  } finally {
    if (api) await stopApi(api);
    await proxy.close();
  }
}

/**
 * The call to replay for a query: the last search or multi-search it sent (the page itself,
 * with any count sent in the same round trip), or undefined when it sent none.
 */
export function replayCall(calls: readonly EngineCall[]): EngineCall | undefined {
  const searches = calls.filter((call) => /\/_(search|msearch)$/.test(pathOf(call)));
  return searches[searches.length - 1];
}

/** A captured engine call as a load-generator case, sent as it was to whatever origin is timed. */
export function engineCallCase(name: string, call: EngineCall): QueryCase {
  return {
    name,
    description: `${name}: Cairn's engine request`,
    method: call.method === 'GET' ? 'GET' : 'POST',
    path: call.path,
    ...(call.body !== '' && { body: call.body }),
    contentType: call.contentType ?? 'application/json',
    buildQuery: () => {
      throw new Error('a replayed engine call has no SearchQuery');
    },
  };
}

/** A call's path without its query string. */
function pathOf(call: EngineCall): string {
  return call.path.split('?')[0] ?? '';
}

/** The pid of the process listening on a loopback TCP port (Linux `ss`), or undefined. */
export function listeningPid(port: number): number | undefined {
  try {
    const listing = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const match = /pid=(\d+)/.exec(listing);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
