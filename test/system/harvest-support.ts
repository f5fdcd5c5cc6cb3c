/**
 * Shared set-up for the harvest tests: a SOURCE Cairn instance listening on loopback (its own
 * SQLite file and generated records) that a target instance harvests, and helpers that change
 * the source as a remote catalogue would change (a record modified now, one added with an old
 * modification date, one deleted).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { decodeUnverifiedClaims } from '../../shared/auth/token-exchange.js';
import { loadConfig } from '../../shared/config/index.js';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import { createAuthMiddleware } from '../../services/api/middleware/auth.js';
import { renderJsonError } from '../../services/api/middleware/errors.js';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

export interface SourceCatalogue {
  test: TestApp;
  /** The `aud` of every token a protected source accepted. */
  audiences: unknown[];
  /** http://127.0.0.1:{port}/catalogue */
  base: string;
  close(): Promise<void>;
}

/**
 * Starts a source catalogue of `count` generated records (seed 7) on a loopback port. With
 * `protectedBy` (an issuer and client id) every request must carry a bearer token for that
 * client, checked by Cairn's own auth middleware against the provider's JWKS, as a protected
 * remote catalogue would.
 */
export async function startSourceCatalogue(
  count: number,
  protectedBy?: { issuer: string; clientId: string },
): Promise<SourceCatalogue> {
  const test = await createTestApp(count);
  const audiences: unknown[] = [];
  let handler: express.Express = test.app;
  if (protectedBy) {
    const { auth } = loadConfig({
      AUTH_ISSUER_URL: protectedBy.issuer,
      AUTH_CLIENT_ID: protectedBy.clientId,
    });
    handler = express();
    handler.use(createAuthMiddleware(auth).requireAuth(), (request, _response, next) => {
      const token = request.headers.authorization?.slice('Bearer '.length) ?? '';
      audiences.push(decodeUnverifiedClaims(token)?.aud);
      next();
    });
    handler.use(test.app);
    handler.use(renderJsonError);
  }
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    test,
    audiences,
    base: `http://127.0.0.1:${port}/catalogue`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await test.close();
    },
  };
}

/** Every record id of a catalogue's backend, sorted. */
export async function allIds(test: TestApp): Promise<string[]> {
  const result = await test.backend.search({ sort: [], offset: 0, limit: 10000 });
  return result.records.map((record) => record.id).sort();
}

/** Changes at the source: one record re-titled now, one added (old date), one deleted. */
export async function changeSource(source: SourceCatalogue): Promise<{
  modified: string;
  added: string;
  deleted: string;
  title: string;
}> {
  const [one, two] = [...generateRecords(2, 7)];
  const first = defined(one, 'the first source record');
  const second = defined(two, 'the second source record');
  const title = `Changed at the source ${Date.now()}`;
  const modified = {
    ...first,
    properties: { ...(first.properties ?? {}), title, updated: new Date().toISOString() },
  };
  // A new record whose modification date is old: only the identifier listing reveals it.
  const added = defined([...generateRecords(1, 7, 5000)][0], 'the added record');
  const summary = await ingestDocuments(source.test.backend, [
    { name: 'modified', content: JSON.stringify(modified) },
    { name: 'added', content: JSON.stringify(added) },
  ]);
  if (summary.written !== 2) throw new Error(`source change failed: ${JSON.stringify(summary)}`);
  const deleted = String(second.id);
  if ((await source.test.backend.delete([deleted])) !== 1) throw new Error('nothing deleted');
  return { modified: String(first.id), added: String(added.id), deleted, title };
}
