/**
 * What reading a page's `_source` costs the engine, by how it is asked for: none, the whole
 * of it, the parts Cairn presents (`record` and `source`, or `record` alone), or all but the
 * fields derived for search. Pages of 10 records found by id (cheap to find, so the fetch is
 * most of the time; `--page-size` for more, as the refining search's candidate batches of
 * 1,000), each variant in turn (A B C … A B C …), straight at the engine over one keep-alive
 * connection, with `--filter-path` as the `filter_path` of every request when given; beside
 * each round trip, the time JSON.parse takes over the answer (what the API then pays for its
 * size). Writes every variant's percentiles to a JSON file and prints them.
 *
 *   npx tsx scripts/bench/source-filtering.ts --url http://127.0.0.1:9251 --alias ab10os
 *     [--rounds 300] [--page-size 10] [--filter-path hits.hits._id,hits.hits._source]
 *     [--out bench/results/source-filtering-<engine>.json]
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { percentile } from './http-load.js';

const DERIVED = ['anytext', 'props', 'sort', 'time', 'bbox', 'box0', 'box1', 'geometry', 'has'];

const VARIANTS: Record<string, unknown> = {
  'none (_source: false)': false,
  'whole (_source: true)': true,
  'record and source named': ['record', 'source'],
  'record named': ['record'],
  'derived fields excluded': { excludes: [...DERIVED, 'indexedAt', 'boxFootprint', 'id'] },
};

function post(agent: http.Agent, url: URL, path: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve(text)
            : reject(new Error(`${response.statusCode}: ${text.slice(0, 200)}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      alias: { type: 'string' },
      rounds: { type: 'string', default: '300' },
      'page-size': { type: 'string', default: '10' },
      'filter-path': { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (!values.url || !values.alias) {
    console.error(
      'usage: source-filtering.ts --url ENGINE_URL --alias ALIAS [--rounds N] [--page-size N] [--filter-path LIST] [--out FILE]',
    );
    process.exit(2);
  }
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10_000) {
    console.error(`--page-size must be an integer from 1 to 10000, got ${values['page-size']}`);
    process.exit(2);
  }
  const url = new URL(values.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const index = `/${encodeURIComponent(values.alias)}/_search`;
  const filterPath = values['filter-path'];
  const path = filterPath ? `${index}?filter_path=${encodeURIComponent(filterPath)}` : index;
  // Records from the middle of the index, found by id (cheap: the fetch is most of it).
  const first = JSON.parse(
    await post(
      agent,
      url,
      index,
      JSON.stringify({ size: pageSize, from: 5000, sort: [{ id: 'asc' }], _source: false }),
    ),
  ) as { hits: { hits: { _id: string }[] } };
  const ids = first.hits.hits.map((hit) => hit._id);
  if (ids.length < pageSize) {
    throw new Error(`fewer than ${5000 + pageSize} records under ${values.alias}`);
  }
  const bodies = Object.entries(VARIANTS).map(([name, source]) => ({
    name,
    body: JSON.stringify({
      query: { ids: { values: ids } },
      sort: [{ id: 'asc' }],
      size: pageSize,
      track_total_hits: false,
      _source: source,
    }),
    times: [] as number[],
    parseTimes: [] as number[],
    bytes: 0,
  }));
  for (const variant of bodies) variant.bytes = (await post(agent, url, path, variant.body)).length;
  for (let round = 0; round < 20; round += 1) {
    for (const variant of bodies) await post(agent, url, path, variant.body);
  }
  const rounds = Number(values.rounds);
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of bodies) {
      const started = performance.now();
      const answer = await post(agent, url, path, variant.body);
      variant.times.push(performance.now() - started);
      const parsing = performance.now();
      JSON.parse(answer);
      variant.parseTimes.push(performance.now() - parsing);
    }
  }
  agent.destroy();
  const rows = bodies.map(({ name, times, parseTimes, bytes }) => {
    const ms = (values: number[], fraction: number) =>
      Math.round(
        percentile(
          [...values].sort((a, b) => a - b),
          fraction,
        ) * 100,
      ) / 100;
    return {
      variant: name,
      answerBytes: bytes,
      p50Ms: ms(times, 0.5),
      p90Ms: ms(times, 0.9),
      p99Ms: ms(times, 0.99),
      parseP50Ms: ms(parseTimes, 0.5),
    };
  });
  const result = {
    benchmark: 'source-filtering',
    date: new Date().toISOString(),
    engine: values.url,
    alias: values.alias,
    rounds,
    page: `${pageSize} records found by id, sorted by id, no hit count`,
    filterPath: filterPath ?? null,
    rows,
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    '| variant | answer bytes | p50 ms | p90 ms | p99 ms | JSON.parse p50 ms |\n| --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const row of rows) {
    console.log(
      `| ${row.variant} | ${row.answerBytes} | ${row.p50Ms} | ${row.p90Ms} | ${row.p99Ms} | ${row.parseP50Ms} |`,
    );
  }
}

await main();
