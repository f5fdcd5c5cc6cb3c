/**
 * A copy of a Cairn engine index whose stored `_source` leaves out the fields derived for
 * search (they are still indexed, so every query finds the same records): the lever "a page's
 * answer without the derived fields" measured with the API unchanged, by running
 * `scripts/bench/api-ab.ts --a-alias <copy> --alias <original>` (pages read only `record` and
 * `source` from a hit, which the copy keeps).
 *
 *   npx tsx scripts/bench/slim-source-index.ts --url http://127.0.0.1:9251 \
 *     --from cairn-overhead-os --to cairn-slim-os [--segments N] [--whole]
 *
 * `--whole` makes the same copy with the whole `_source` kept: the other side of a fair A/B,
 * loaded and merged the same way.
 *
 * Copies the index behind `--from` (settings that can be set, and the mapping with
 * `_source.excludes`) to `<to>-v1`, fills it through `_search` and `_bulk`, merges it to the segment count
 * of the original (or `--segments`) so both answer from as many segments, and points the alias
 * `--to` at it. Prints both indexes' stored size and one hit's `_source` bytes from each.
 * An experiment for the benches, not a layout Cairn writes: the change feed, the deep-paging
 * walks and the refinement of candidates read some derived fields from `_source`.
 */
import { parseArgs } from 'node:util';

/** The derived fields a page never reads from a hit (engine-document.ts builds them). */
export const DERIVED_FIELDS = [
  'anytext',
  'stems',
  'props',
  'sort',
  'time',
  'bbox',
  'centre',
  'box0',
  'box1',
  'boxFootprint',
  'geometry',
];

/** Settings of an index that a new index can be created with (not its identity or history). */
export function creatableSettings(index: Record<string, unknown>): Record<string, unknown> {
  const fixed = new Set(['uuid', 'version', 'creation_date', 'provided_name', 'replication']);
  return Object.fromEntries(Object.entries(index).filter(([key]) => !fixed.has(key)));
}

async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined && {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Copies every document of `source` into `target` with its whole `_source`, in pages of 1,000
 * after the last id, through `_bulk` (the test distributions have no `_reindex`).
 */
async function copyRecords(url: string, source: string, target: string): Promise<number> {
  let after: unknown[] | undefined;
  let copied = 0;
  for (;;) {
    const page = await call(url, 'POST', `/${source}/_search`, {
      size: 1000,
      sort: [{ id: 'asc' }],
      ...(after && { search_after: after }),
    });
    const hits = (page.hits as { hits: { _id: string; _source: unknown; sort: unknown[] }[] }).hits;
    if (hits.length === 0) return copied;
    const lines = hits.flatMap((hit) => [
      JSON.stringify({ index: { _index: target, _id: hit._id } }),
      JSON.stringify(hit._source),
    ]);
    const response = await fetch(`${url}/_bulk`, {
      method: 'POST',
      body: `${lines.join('\n')}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    const answer = (await response.json()) as { errors?: boolean; items?: unknown[] };
    if (!response.ok || answer.errors)
      throw new Error(`_bulk into ${target}: ${JSON.stringify(answer).slice(0, 300)}`);
    copied += hits.length;
    after = hits[hits.length - 1]?.sort;
  }
}

async function segmentCount(url: string, index: string): Promise<number> {
  const answer = await call(url, 'GET', `/${index}/_segments`);
  const shards = (answer.indices as Record<string, { shards: Record<string, unknown[]> }>)[index]
    ?.shards;
  const [first] = Object.values(shards ?? {});
  const segments = (first?.[0] as { segments?: Record<string, unknown> } | undefined)?.segments;
  return Object.keys(segments ?? {}).length;
}

async function oneSourceBytes(url: string, index: string): Promise<number> {
  const answer = await call(url, 'POST', `/${index}/_search`, { size: 1, sort: ['id'] });
  const hits = (answer.hits as { hits: { _source: unknown }[] }).hits;
  return JSON.stringify(hits[0]?._source ?? {}).length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: process.env.OPENSEARCH_URL },
      from: { type: 'string' },
      to: { type: 'string' },
      segments: { type: 'string' },
      whole: { type: 'boolean', default: false },
    },
  });
  const { url, from, to } = values;
  if (!url || !from || !to) {
    throw new Error('usage: slim-source-index.ts --url URL --from ALIAS --to ALIAS [--segments N]');
  }
  const aliases = await call(url, 'GET', `/_alias/${from}`);
  const [source] = Object.keys(aliases);
  if (!source) throw new Error(`no index behind ${from}`);
  const target = `${to}-v1`;
  const settings = (await call(url, 'GET', `/${source}/_settings`)) as Record<
    string,
    { settings: { index: Record<string, unknown> } }
  >;
  const mappings = (await call(url, 'GET', `/${source}/_mapping`)) as Record<
    string,
    { mappings: Record<string, unknown> }
  >;
  const index = settings[source]?.settings.index ?? {};
  const mapping = mappings[source]?.mappings ?? {};
  await fetch(`${url}/${target}`, { method: 'DELETE' });
  await call(url, 'PUT', `/${target}`, {
    settings: { index: { ...creatableSettings(index), refresh_interval: '-1' } },
    mappings: values.whole ? mapping : { ...mapping, _source: { excludes: DERIVED_FIELDS } },
  });
  const started = performance.now();
  const copied = await copyRecords(url, source, target);
  await call(url, 'POST', `/${target}/_refresh`);
  console.log(`copied ${copied} records in ${Math.round(performance.now() - started)} ms`);
  await call(url, 'PUT', `/${target}/_settings`, { index: { refresh_interval: null } });
  const segments = Number(values.segments ?? (await segmentCount(url, source)));
  await call(url, 'POST', `/${target}/_forcemerge?max_num_segments=${segments}`);
  await call(url, 'POST', '/_aliases', {
    actions: [{ add: { index: target, alias: to, is_write_index: true } }],
  });
  const sizes = await call(url, 'GET', `/_cat/indices/${source},${target}?format=json&bytes=b`);
  for (const row of sizes as unknown as { index: string; 'store.size': string }[])
    console.log(`${row.index}: ${row['store.size']} bytes stored`);
  console.log(
    `segments: ${source} ${await segmentCount(url, source)}, ${target} ${await segmentCount(url, target)}`,
  );
  console.log(
    `one hit's _source: ${await oneSourceBytes(url, source)} bytes in ${source}, ${await oneSourceBytes(url, target)} in ${target}`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
