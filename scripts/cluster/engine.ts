/** Exact reads of what the engine cluster holds, straight from the engine (not the API). */

async function engineJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(
      `${init.method ?? 'GET'} ${url}: HTTP ${response.status} ${text.slice(0, 300)}`,
    );
  return JSON.parse(text) as T;
}

/** Documents in the alias (searchable now); undefined while the engine cannot say. */
export async function countRecords(engineUrl: string, alias: string): Promise<number | undefined> {
  try {
    const body = await engineJson<{ count: number }>(`${engineUrl}/${alias}/_count`);
    return body.count;
  } catch {
    return undefined;
  }
}

export async function refresh(engineUrl: string, alias: string): Promise<void> {
  await engineJson(`${engineUrl}/${alias}/_refresh`, { method: 'POST' });
}

/** Every document id in the alias, in index order, duplicates included (a scroll). */
export async function listIds(engineUrl: string, alias: string): Promise<string[]> {
  const ids: string[] = [];
  type Page = { _scroll_id: string; hits: { hits: { _id: string }[] } };
  let page = await engineJson<Page>(`${engineUrl}/${alias}/_search?scroll=2m`, {
    method: 'POST',
    body: JSON.stringify({ size: 5000, _source: false, sort: ['_doc'], query: { match_all: {} } }),
  });
  try {
    while (page.hits.hits.length > 0) {
      for (const hit of page.hits.hits) ids.push(hit._id);
      page = await engineJson<Page>(`${engineUrl}/_search/scroll`, {
        method: 'POST',
        body: JSON.stringify({ scroll: '2m', scroll_id: page._scroll_id }),
      });
    }
  } finally {
    await fetch(`${engineUrl}/_search/scroll`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scroll_id: page._scroll_id }),
    }).catch(() => undefined);
  }
  return ids;
}

/** Shards and replicas of the index behind the alias, and the cluster's state. */
/**
 * The cluster's health once the run is over: waits up to `timeoutSeconds` for green (replicas
 * of the killed node reallocated), then reports whatever status the engine gives.
 */
export async function finalHealth(
  engineUrl: string,
  timeoutSeconds: number,
): Promise<{ status: string; nodes: number; unassignedShards: number }> {
  const health = await engineJson<{
    status: string;
    number_of_nodes: number;
    unassigned_shards: number;
  }>(`${engineUrl}/_cluster/health?wait_for_status=green&timeout=${timeoutSeconds}s`);
  return {
    status: health.status,
    nodes: health.number_of_nodes,
    unassignedShards: health.unassigned_shards,
  };
}

export async function describeLayout(
  engineUrl: string,
  alias: string,
): Promise<{ index: string; shards: number; replicas: number; status: string; nodes: number }> {
  const settings = await engineJson<
    Record<
      string,
      { settings: { index: { number_of_shards: string; number_of_replicas: string } } }
    >
  >(`${engineUrl}/${alias}/_settings`);
  const [entry] = Object.entries(settings);
  if (entry === undefined) throw new Error(`no index settings for ${alias}`);
  const [index, { settings: s }] = entry;
  const health = await engineJson<{ status: string; number_of_nodes: number }>(
    `${engineUrl}/_cluster/health`,
  );
  return {
    index,
    shards: Number(s.index.number_of_shards),
    replicas: Number(s.index.number_of_replicas),
    status: health.status,
    nodes: health.number_of_nodes,
  };
}
