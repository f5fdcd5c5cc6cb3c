/**
 * The peer catalogues as child processes, shared by `npm run bench:peers` and the harvest test
 * against the peers (test/system/harvest-peers.test.ts): installing them (the venv of
 * `scripts/python-env.sh peers`, from scripts/bench/peers/requirements.txt), starting pycsw 3
 * under gunicorn on a SQLite repository and SFEOS (stac-fastapi-opensearch or
 * -elasticsearch) under uvicorn on an engine, waiting for them, stopping them, and deleting the
 * engine indexes and templates SFEOS made under a prefix. Everything binds 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** pycsw_peer.py: writes pycsw's configuration and loads records through its own parser. */
export const PYCSW_PEER_SCRIPT = join(REPO_ROOT, 'scripts', 'bench', 'peers', 'pycsw_peer.py');

function sleep(milliseconds: number): Promise<void> {
  return new Promise((done) => setTimeout(done, milliseconds));
}

/** A peer server child process: one worker count of one peer. */
export interface Peer {
  name: string;
  workers: number;
  origin: string;
  /** A cheap request on the server, answered once its backlog is done. */
  probe: string;
  child: ChildProcess;
  stderr: () => string;
}

export function spawnPeer(
  name: string,
  workers: number,
  origin: string,
  probe: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Peer {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return { name, workers, origin, probe, child, stderr: () => stderr };
}

/** Resolves once `url` answers 2xx; rejects when the peer exits or the time is up. */
export async function waitFor(peer: Peer, url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (peer.child.exitCode !== null) throw new Error(`${peer.name} exited: ${peer.stderr()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(300);
  }
  throw new Error(`${peer.name} not ready within ${timeoutMs} ms: ${peer.stderr()}`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Runs a command to its end; resolves with its stdout, rejects with its exit code and stderr. */
export function runCommand(
  command: string,
  args: string[],
  input?: (stdin: Writable) => Promise<void>,
  options: { echoStderr?: boolean } = {},
): Promise<string> {
  const echo = options.echoStderr ?? true;
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (echo) process.stderr.write(text);
      stderr = (stderr + text).slice(-4000);
    });
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (code === 0) done(stdout);
      else fail(new Error(`${command} ${args.join(' ')} ended with ${code ?? signal}: ${stderr}`));
    });
    if (input && child.stdin) {
      const stdin = child.stdin;
      // A loader that dies early closes the pipe: its exit code and stderr say why.
      stdin.on('error', () => undefined);
      input(stdin).then(
        () => stdin.end(),
        (error: unknown) => {
          child.kill('SIGTERM');
          fail(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }
  });
}

/** Builds (or finds) the peers' venv with `scripts/python-env.sh peers`; its directory. */
export async function installPeers(options: { echoStderr?: boolean } = {}): Promise<string> {
  return (
    await runCommand(
      'bash',
      [join(REPO_ROOT, 'scripts', 'python-env.sh'), 'peers'],
      undefined,
      options,
    )
  ).trim();
}

/**
 * Starts pycsw (`pycsw.wsgi_flask:APP`: CSW at /csw, OGC API – Records at /collections, OAI-PMH
 * at /oaipmh) under gunicorn with the configuration `pycsw_peer.py setup` wrote in `dir`, and
 * waits until it answers. gthread with one thread: one request at a time per worker, like the
 * sync worker, but with keep-alive — the sync worker closes every connection, which autocannon
 * times wrongly (a p50 of hundreds of ms at 1 connection while a sequential client sees 15 ms).
 */
export async function startPycsw(
  venv: string,
  dir: string,
  port: number,
  workers = 1,
): Promise<Peer> {
  const peer = spawnPeer(
    'pycsw',
    workers,
    `http://127.0.0.1:${port}`,
    '/conformance',
    join(venv, 'bin', 'gunicorn'),
    [
      '-w',
      String(workers),
      '-k',
      'gthread',
      '--threads',
      '1',
      '--keep-alive',
      '30',
      '-b',
      `127.0.0.1:${port}`,
      '--log-level',
      'warning',
      'pycsw.wsgi_flask:APP',
    ],
    { ...process.env, PYCSW_CONFIG: join(dir, 'pycsw.yml') },
    dir,
  );
  try {
    await waitFor(peer, `${peer.origin}/conformance`);
  } catch (error) {
    await stopChild(peer.child);
    throw error;
  }
  return peer;
}

/** Which SFEOS: stac-fastapi-opensearch or stac-fastapi-elasticsearch. */
export interface SfeosFlavour {
  /** The pairing's name: sfeos (stac-fastapi-opensearch) or sfeos-elasticsearch. */
  peer: string;
  backend: 'opensearch' | 'elasticsearch';
  variable: 'OPENSEARCH_URL' | 'ELASTICSEARCH_URL';
  module: string;
}

export const SFEOS_FLAVOURS = {
  sfeos: {
    peer: 'sfeos',
    backend: 'opensearch',
    variable: 'OPENSEARCH_URL',
    module: 'stac_fastapi.opensearch',
  },
  'sfeos-elasticsearch': {
    peer: 'sfeos-elasticsearch',
    backend: 'elasticsearch',
    variable: 'ELASTICSEARCH_URL',
    module: 'stac_fastapi.elasticsearch',
  },
} satisfies Record<string, SfeosFlavour>;

/**
 * Starts SFEOS under uvicorn (uvloop, httptools) with the Transactions extension on, its
 * collections index `{prefix}collections` and item indexes `{prefix}items_*` on `engine`, and
 * waits until it answers. Two SFEOS starting at once on one prefix race while creating their
 * indexes (resource_already_exists_exception kills the second): start them one after the other.
 */
export async function startSfeos(
  venv: string,
  flavour: SfeosFlavour,
  engine: string,
  indexPrefix: string,
  port: number,
  workers = 1,
): Promise<Peer> {
  const engineUrl = new URL(engine);
  if (engineUrl.hostname !== '127.0.0.1' && engineUrl.hostname !== 'localhost')
    throw new Error(`${flavour.peer}: the engine must be on loopback, not ${engine}`);
  const peer = spawnPeer(
    flavour.peer,
    workers,
    `http://127.0.0.1:${port}`,
    '/',
    join(venv, 'bin', 'uvicorn'),
    [
      `${flavour.module}.app:create_app`,
      '--factory',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--loop',
      'uvloop',
      '--http',
      'httptools',
      '--workers',
      String(workers),
      '--log-level',
      'warning',
      // Longer than a bulk load's pauses between requests on one connection: at uvicorn's
      // default of 5 s it closes idle connections as the next bulk request is sent on them.
      '--timeout-keep-alive',
      '75',
    ],
    {
      ...process.env,
      ES_HOST: engineUrl.hostname,
      ES_PORT: engineUrl.port || '9200',
      ES_USE_SSL: 'false',
      ES_VERIFY_CERTS: 'false',
      ENABLE_TRANSACTIONS_EXTENSIONS: 'true',
      STAC_COLLECTIONS_INDEX: `${indexPrefix}collections`,
      STAC_ITEMS_INDEX_PREFIX: `${indexPrefix}items_`,
    },
    REPO_ROOT,
  );
  try {
    await waitFor(peer, `${peer.origin}/`);
  } catch (error) {
    await stopChild(peer.child);
    throw error;
  }
  return peer;
}

/** Deletes the indexes named `{prefix}*` and the templates made for them; returns the indexes. */
export async function deletePeerIndexesAndTemplates(
  engine: string,
  prefix: string,
): Promise<string[]> {
  const response = await fetch(`${engine}/_cat/indices/${prefix}*?format=json&h=index`);
  const indexes = response.ok
    ? ((await response.json()) as { index: string }[]).map((row) => row.index)
    : [];
  for (const index of indexes) {
    if (!index.startsWith(prefix)) continue;
    await fetch(`${engine}/${encodeURIComponent(index)}`, { method: 'DELETE' });
  }
  // The templates made for them (Cairn's `{prefix}cairn*`, SFEOS's `template_{prefix}*`),
  // index templates before the component templates they use.
  for (const [kind, key] of [
    ['_index_template', 'index_templates'],
    ['_component_template', 'component_templates'],
  ] as const) {
    const listed = await fetch(`${engine}/${kind}`);
    if (!listed.ok) continue;
    const names = ((await listed.json()) as Record<string, { name: string }[]>)[key] ?? [];
    for (const { name } of names) {
      if (!name.startsWith(prefix) && !name.startsWith(`template_${prefix}`)) continue;
      await fetch(`${engine}/${kind}/${encodeURIComponent(name)}`, { method: 'DELETE' });
    }
  }
  return indexes;
}
