/**
 * A throwaway, empty, in-memory catalogue with the embedded backend's semantics, for evaluating
 * filters on records that are not written yet (a CSW-T Transaction's plan). Protocols get it
 * from here, so that they never import a concrete backend.
 */
import type { SearchBackend } from './backend.js';
import { SqliteBackend } from './sqlite/sqlite-backend.js';

/** Opens the scratch catalogue; the caller closes it. */
export async function openScratchBackend(): Promise<SearchBackend> {
  const backend = new SqliteBackend({ path: ':memory:' });
  await backend.init();
  return backend;
}
