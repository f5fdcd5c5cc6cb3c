/**
 * The floor under any HTTP API in front of the engine: a bare `node:http` server that forwards
 * each request it receives (method, path with query string, body) to the engine over a
 * keep-alive connection and returns the engine's answer as is — no routing, validation,
 * parsing or presentation. The bench replays each case's captured DSL through it, interleaved
 * with the API and the engine alone, so the report can say what a do-nothing API costs on this
 * machine and how far Cairn is from it.
 *
 * Under it, the hop alone (`--tcp`): a `node:net` server that pipes each connection's bytes to
 * a connection of its own to the engine and back, parsing nothing. It is what one more process
 * on the path costs on this machine (the kernel's loopback and the wake-ups), before any HTTP
 * parsing; the floor adds node's HTTP server and client to it.
 *
 * Above it, the reader (`--read`): the floor that also reads what it serves. It parses the
 * engine's answer (`JSON.parse`, nothing else) and writes the hits' sources as a page of its
 * own (`JSON.stringify`). It is the least a front does that answers from the records
 * themselves rather than from bytes kept ready for it: what no routing, presentation or
 * checking is in, and no front that reads its records can do without.
 *
 *   node --import tsx scripts/bench/pass-through.ts <engine-url> [port] [--tcp | --read]
 *
 * Beside the reader, the splicer (`--splice <index>`): the floor in front of a copy of the index
 * whose documents also keep each record's STAC Item as one JSON string, made at write time
 * (`presented`: a stored field, not indexed). It sends the same search to the copy asking for
 * that stored field alone (no `_source`, which the engine would have to parse to filter),
 * parses the answer (the items stay strings), puts the request's base URL into them and joins
 * them into a page: what serving items kept as strings, the lever the performance issue
 * names, would cost at the least (scripts/bench/splice-floor.ts builds the copy and times it).
 *
 *   node --import tsx scripts/bench/pass-through.ts <engine-url> [port] [--tcp | --read | --splice <index>]
 *
 * Run as its own process (as the API is), so its CPU is not the load generator's.
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { pathToFileURL } from 'node:url';

/** The pass-through's answer to `GET /readyz` (its own, not forwarded). */
export const READY_PATH = '/readyz';

/** The modes of the pass-through: the floor, the reader, the splicer and the hop (see above). */
export type PassThroughMode = 'floor' | 'read' | 'splice' | 'tcp';

/** The base URL the kept item strings are written with; the splicer puts the request's in. */
export const PRESENTED_BASE = 'http://presented.invalid';

/** The field of the splicer's index copy that keeps each record's STAC Item as a string. */
export const PRESENTED_FIELD = 'presented';

/** A search asking for the kept item string alone. */
function askingForStrings(search: Record<string, unknown>): Record<string, unknown> {
  return { ...search, _source: false, stored_fields: [PRESENTED_FIELD] };
}

/**
 * The splicer's engine request from the one Cairn sends: the same search against `index`,
 * asking for the kept item string alone. A multi-search (`_msearch`, NDJSON header and body
 * lines) has each header's index and each search rewritten so.
 */
export function spliceRequest(
  path: string,
  body: string,
  index: string,
): { path: string; body: string } {
  const [pathname = '', query] = path.split('?');
  const suffix = query === undefined ? '' : `?${query}`;
  if (pathname === '/_msearch' || pathname.endsWith('/_msearch')) {
    const lines = body.split('\n').filter((line) => line.trim() !== '');
    const rewritten = lines.map((line, position) => {
      const part = JSON.parse(line) as Record<string, unknown>;
      if (position % 2 === 1) return JSON.stringify(askingForStrings(part));
      return JSON.stringify('index' in part ? { ...part, index } : part);
    });
    return {
      path: pathname === '/_msearch' ? path : `/${index}/_msearch${suffix}`,
      body: `${rewritten.join('\n')}\n`,
    };
  }
  const slash = pathname.indexOf('/', 1);
  if (!pathname.startsWith('/') || slash < 0) throw new Error(`splice: no index in ${path}`);
  const search = body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
  return {
    path: `/${index}${path.slice(slash)}`,
    body: JSON.stringify(askingForStrings(search)),
  };
}

/**
 * The splicer's page: the kept item strings of an engine answer with `base` put in for
 * {@link PRESENTED_BASE}, joined with the number of matches and the page's self and root links
 * (`selfHref` is the request's path and query). No item is parsed.
 */
export function splicePage(answerText: string, base: string, selfHref: string): string {
  interface SearchAnswer {
    hits?: {
      total?: { value?: number } | number;
      hits?: { fields?: Record<string, unknown[] | undefined> }[];
    };
  }
  const parsed = JSON.parse(answerText) as SearchAnswer & { responses?: SearchAnswer[] };
  // A multi-search's page is its answer with the most hits (the last of equals): the others
  // are the size-0 checks sent beside it.
  const answer = parsed.responses
    ? parsed.responses.reduce(
        (best, next) =>
          (next.hits?.hits?.length ?? 0) >= (best.hits?.hits?.length ?? 0) ? next : best,
        {},
      )
    : parsed;
  const hits = answer.hits?.hits ?? [];
  const total = answer.hits?.total;
  const features = hits
    .map((hit) =>
      String(hit.fields?.[PRESENTED_FIELD]?.[0] ?? 'null').replaceAll(PRESENTED_BASE, base),
    )
    .join(',');
  const matched = typeof total === 'number' ? total : (total?.value ?? 0);
  const links = [
    { rel: 'self', type: 'application/geo+json', href: `${base}${selfHref}` },
    { rel: 'root', type: 'application/json', href: `${base}/catalogue/stac` },
  ];
  return `{"type":"FeatureCollection","numberMatched":${matched},"numberReturned":${hits.length},"features":[${features}],"links":${JSON.stringify(links)}}`;
}

/**
 * The reader's page: the sources of the hits of an engine answer (`hits.hits[]._source`) with
 * the number of matches, as JSON; an answer without hits is written back as it was parsed.
 */
export function pageOfHits(answerText: string): string {
  const answer = JSON.parse(answerText) as {
    hits?: { total?: { value?: number } | number; hits?: { _source?: unknown }[] };
  };
  const hits = answer.hits?.hits;
  if (!Array.isArray(hits)) return JSON.stringify(answer);
  const total = answer.hits?.total;
  return JSON.stringify({
    type: 'FeatureCollection',
    numberMatched: typeof total === 'number' ? total : total?.value,
    numberReturned: hits.length,
    features: hits.map((hit) => hit._source),
  });
}

/**
 * Creates (without listening) the pass-through server for an engine at `engineUrl`
 * (`http://host:port`, no path): the floor, or with `read` the reader. The upstream
 * connections are kept alive and reused.
 */
export function createPassThroughServer(
  engineUrl: string,
  { read = false, spliceIndex }: { read?: boolean; spliceIndex?: string } = {},
): Server {
  const upstream = new URL(engineUrl);
  if (upstream.protocol !== 'http:') {
    throw new Error(`pass-through: only http engine URLs are supported, got ${engineUrl}`);
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer((incoming, outgoing) => {
    if (incoming.method === 'GET' && incoming.url === READY_PATH) {
      outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('ready');
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const received = Buffer.concat(chunks);
      let spliced: { path: string; body: string } | undefined;
      try {
        spliced =
          spliceIndex === undefined
            ? undefined
            : spliceRequest(incoming.url ?? '/', received.toString('utf8'), spliceIndex);
      } catch (error) {
        // A request the splicer cannot rewrite (not one JSON search body) is refused, not fatal.
        outgoing.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        return;
      }
      const body = spliced ? Buffer.from(spliced.body) : received;
      const forward = httpRequest(
        {
          agent,
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: spliced?.path ?? incoming.url,
          headers: {
            'content-type': incoming.headers['content-type'] ?? 'application/json',
            'content-length': body.length,
          },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const bytes = Buffer.concat(parts);
            const answered = answer.statusCode === 200;
            const payload =
              answered && spliced
                ? Buffer.from(
                    splicePage(
                      bytes.toString('utf8'),
                      `http://${incoming.headers.host ?? '127.0.0.1'}`,
                      incoming.url ?? '/',
                    ),
                  )
                : answered && read
                  ? Buffer.from(pageOfHits(bytes.toString('utf8')))
                  : bytes;
            outgoing.writeHead(answer.statusCode ?? 502, {
              'content-type': answer.headers['content-type'] ?? 'application/json',
              'content-length': payload.length,
            });
            outgoing.end(payload);
          });
        },
      );
      forward.on('error', (error) => {
        if (outgoing.headersSent) return void outgoing.destroy();
        outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(error.message);
      });
      forward.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

/**
 * Creates (without listening) the hop: each accepted connection is piped, byte for byte, to a
 * new connection to the engine at `engineUrl` (`http://host:port`), both with Nagle's algorithm
 * off as node's HTTP sockets have it. Nothing is parsed, so it has no readiness path of its own:
 * a GET of `/` through it is the engine's.
 */
export function createTcpPipeServer(engineUrl: string): TcpServer {
  const upstream = new URL(engineUrl);
  if (upstream.protocol !== 'http:') {
    throw new Error(`pass-through: only http engine URLs are supported, got ${engineUrl}`);
  }
  const port = Number(upstream.port || 80);
  return createTcpServer({ noDelay: true }, (client) => {
    const engine = connect({ host: upstream.hostname, port, noDelay: true });
    client.pipe(engine);
    engine.pipe(client);
    client.on('error', () => engine.destroy());
    engine.on('error', () => client.destroy());
    client.on('close', () => engine.destroy());
    engine.on('close', () => client.destroy());
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [engineUrl, port, mode, index] = process.argv.slice(2);
  const modes = ['--tcp', '--read', '--splice'];
  if (
    !engineUrl ||
    (mode !== undefined && !modes.includes(mode)) ||
    (mode === '--splice' && !index)
  ) {
    console.error('usage: pass-through.ts <engine-url> [port] [--tcp | --read | --splice <index>]');
    process.exit(2);
  }
  const server =
    mode === '--tcp'
      ? createTcpPipeServer(engineUrl)
      : createPassThroughServer(engineUrl, {
          read: mode === '--read',
          ...(mode === '--splice' && { spliceIndex: index }),
        });
  server.listen(Number(port ?? 0), '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
