/**
 * Locates the team's shared folder (`../shared` from the repository root), which holds the
 * official CQL2 examples. A user's clone does not have it; tests that need it skip with a
 * visible reason instead of passing silently.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The shared folder, resolved as `../shared` from the repository root. */
export const SHARED_DIR = path.resolve(REPO_ROOT, '../shared');

/** The CQL2 data folder inside the shared folder. */
export const CQL2_DATA_DIR = path.join(SHARED_DIR, 'data/cql2');

/** Whether the shared CQL2 data is present. */
export function hasSharedCql2Data(): boolean {
  return existsSync(path.join(CQL2_DATA_DIR, 'examples/text'));
}

/** Skips the calling suite (from a `before` hook) with a printed reason when the data is absent. */
export function skipWithoutSharedData(context: Mocha.Context): void {
  if (hasSharedCql2Data()) return;
  console.log(`      skipped: ${CQL2_DATA_DIR} is absent (the official CQL2 examples live there)`);
  context.skip();
}
