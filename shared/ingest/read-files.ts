/**
 * Reading metadata files for the CLIs (ingest, enqueue): folders walked for JSON, NDJSON and
 * XML files in name order, each file one raw document, NDJSON streamed in chunks of lines.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { SourceFormat } from '../records/core-record.js';
import { decodeDocument } from '../xml/index.js';
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

/**
 * Cuts an NDJSON file into pieces of `lines` lines, with their line numbers. The bytes are cut
 * at newlines and decoded once per piece: splitting every line in JavaScript cost the bulk load
 * a fifth of its main thread.
 */
async function* ndjsonChunks(
  file: string,
  lines: number,
): AsyncGenerator<{ first: number; last: number; content: string }> {
  let pending: Buffer = Buffer.alloc(0);
  let done = 0; // lines handed out so far
  for await (const data of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const buffer = pending.length > 0 ? Buffer.concat([pending, data as Buffer]) : (data as Buffer);
    let start = 0;
    for (;;) {
      let end = start;
      let count = 0;
      while (count < lines) {
        const newline = buffer.indexOf(10, end);
        if (newline === -1) break;
        end = newline + 1;
        count += 1;
      }
      if (count < lines) break;
      yield { first: done + 1, last: done + count, content: buffer.toString('utf8', start, end) };
      done += count;
      start = end;
    }
    pending = buffer.subarray(start);
  }
  if (pending.length > 0) {
    let count = 1;
    for (
      let at = pending.indexOf(10);
      at !== -1 && at < pending.length - 1;
      at = pending.indexOf(10, at + 1)
    )
      count += 1;
    yield { first: done + 1, last: done + count, content: pending.toString('utf8') };
  }
}

/** Reads files as raw documents; NDJSON files are streamed in chunks of `chunkLines` lines. */
export async function* readDocuments(
  files: string[],
  options: {
    format?: SourceFormat | undefined;
    chunkLines: number;
    onUnreadable: (name: string, reason: string) => void;
  },
): AsyncGenerator<RawDocument> {
  const { format, chunkLines } = options;
  for (const file of files) {
    try {
      if (isNdjsonFile(file)) {
        for await (const chunk of ndjsonChunks(file, chunkLines)) {
          if (chunk.content.trim() === '') continue;
          yield { name: `${file}:${chunk.first}-${chunk.last}`, content: chunk.content, format };
        }
      } else {
        yield { name: file, content: decodeDocument(await readFile(file)), format };
      }
    } catch (error) {
      options.onUnreadable(file, (error as Error).message);
    }
  }
}
