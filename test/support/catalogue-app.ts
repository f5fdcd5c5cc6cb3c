/**
 * Builds the API app over a fresh backend loaded with given documents (any format the
 * ingest pipeline reads), for system tests that need a known set of records — e.g. the OGC
 * CITE Dublin Core records — rather than generated ones.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RawDocument } from '../../shared/ingest/pipeline.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { systemBackend } from './system-backend.js';
import { startApp, type TestApp } from './test-app.js';

/** Reads every `.xml` / `.json` file of a folder as raw documents, by file name. */
export function readDocuments(directory: string): RawDocument[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.xml') || name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, content: readFileSync(join(directory, name), 'utf8') }));
}

/** Generated records (seed 7) as raw documents. */
export function generatedDocuments(count: number): RawDocument[] {
  return [...generateRecords(count, 7)].map((record, index) => ({
    name: `generated ${index}`,
    content: JSON.stringify(record),
  }));
}

/**
 * Starts an app over exactly these documents, on the backend CAIRN_TEST_SYSTEM_BACKEND chooses
 * (SQLite by default); fails when any is rejected.
 */
export async function createCatalogueApp(
  documents: RawDocument[],
  environment: Record<string, string> = {},
): Promise<TestApp> {
  return startApp(systemBackend(), documents, environment);
}
