/**
 * Imports saved objects (index patterns and saved searches, as .ndjson) into OpenSearch
 * Dashboards or Kibana through their saved-objects API, replacing objects of the same id, so
 * running it again is harmless. Waits for the server to be ready first. The one-shot
 * `dashboards-setup` and `kibana-setup` services of docker-compose.yml run it.
 *
 *   node dist/scripts/import-saved-objects.js --url http://dashboards:5601 \
 *     --file deploy/dashboards/cairn-saved-objects.ndjson [--wait-seconds 300]
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

/** What the saved-objects import answers (the same in Kibana and OpenSearch Dashboards). */
interface ImportResponse {
  success?: boolean;
  successCount?: number;
  errors?: { id: string; type: string; error: { type: string; message?: string } }[];
  message?: string;
}

/**
 * The headers of a write to the saved-objects API: Kibana refuses one without `kbn-xsrf`,
 * OpenSearch Dashboards one without `osd-xsrf`; each ignores the other's.
 */
const XSRF_HEADERS = { 'kbn-xsrf': 'true', 'osd-xsrf': 'true' };

/** Describes what an import answered: null when every object was imported, else the problems. */
export function describeImportFailure(status: number, body: ImportResponse): string | null {
  if (status === 200 && body.success === true) return null;
  const problems = (body.errors ?? []).map(
    (error) => `${error.type} ${error.id}: ${error.error.message ?? error.error.type}`,
  );
  return [`import answered ${status}`, body.message, ...problems].filter(Boolean).join('; ');
}

/** Waits until the server's status API answers 200; throws once `waitSeconds` have passed. */
async function waitUntilReady(url: string, waitSeconds: number): Promise<void> {
  const deadline = Date.now() + waitSeconds * 1000;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(5000) });
      if (response.ok) return;
      last = `status ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error(`${url} was not ready after ${waitSeconds} s (${last})`);
}

/** Imports the file's saved objects, overwriting those with the same ids. */
async function importSavedObjects(url: string, file: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(file)]), basename(file));
  const response = await fetch(`${url}/api/saved_objects/_import?overwrite=true`, {
    method: 'POST',
    headers: XSRF_HEADERS,
    body: form,
  });
  const body = (await response.json().catch(() => ({}))) as ImportResponse;
  const failure = describeImportFailure(response.status, body);
  if (failure) throw new Error(failure);
  return body.successCount ?? 0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      file: { type: 'string' },
      'wait-seconds': { type: 'string', default: '300' },
    },
  });
  const waitSeconds = Number(values['wait-seconds']);
  if (!values.url || !values.file || !Number.isFinite(waitSeconds) || waitSeconds < 0) {
    throw new Error(
      'usage: import-saved-objects --url <dashboards or kibana URL> --file <.ndjson> [--wait-seconds N]',
    );
  }
  const url = values.url.replace(/\/+$/, '');
  await waitUntilReady(url, waitSeconds);
  const count = await importSavedObjects(url, values.file);
  console.log(`imported ${count} saved objects from ${values.file} into ${url}`);
}

// Run as a script (not when a test imports describeImportFailure).
if (process.argv[1] !== undefined && /import-saved-objects\.[jt]s$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error(`import-saved-objects: ${(error as Error).message}`);
    process.exit(1);
  });
}
