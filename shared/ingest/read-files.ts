/**
 * Reading metadata files for the CLIs (ingest, enqueue): folders walked for JSON, NDJSON and
 * XML files in name order, each file one raw document, NDJSON streamed in chunks of lines.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { SourceFormat } from '../records/core-record.js';
import type { RawDocument } from './pipeline.js';

/** The file name extensions read from folders. */
export const METADATA_EXTENSIONS = new Set(['.json', '.geojson', '.ndjson', '.jsonl', '.xml']);

/** A file name is NDJSON (one record a line). */
export function isNdjsonFile(file: string): boolean {
  return ['.ndjson', '.jsonl'].includes(extname(file).toLowerCase());
}

/** The metadata files at a path: the file itself, or those under a folder in name order. */
export async function listFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (info.isFile()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter(
        (entry) =>
          entry.isDirectory() || METADATA_EXTENSIONS.has(extname(entry.name).toLowerCase()),
      )
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((entry) => listFiles(join(path, entry.name))),
  );
  return nested.flat();
}

/** Reads files as raw documents; NDJSON files are streamed in chunks of `chunkLines` lines. */
export async function* readDocuments(
  files: string[],
  options: {
    format?: SourceFormat;
    chunkLines: number;
    onUnreadable: (name: string, reason: string) => void;
  },
): AsyncGenerator<RawDocument> {
  const { format, chunkLines } = options;
  for (const file of files) {
    try {
      if (isNdjsonFile(file)) {
        let lines: string[] = [];
        let first = 1;
        let lineNumber = 0;
        for await (const line of createInterface({
          input: createReadStream(file, 'utf8'),
          crlfDelay: Infinity,
        })) {
          lineNumber += 1;
          if (line.trim() === '') continue;
          lines.push(line);
          if (lines.length >= chunkLines) {
            yield { name: `${file}:${first}-${lineNumber}`, content: lines.join('\n'), format };
            lines = [];
            first = lineNumber + 1;
          }
        }
        if (lines.length > 0)
          yield { name: `${file}:${first}-${lineNumber}`, content: lines.join('\n'), format };
      } else {
        yield { name: file, content: await readFile(file, 'utf8'), format };
      }
    } catch (error) {
      options.onUnreadable(file, (error as Error).message);
    }
  }
}
