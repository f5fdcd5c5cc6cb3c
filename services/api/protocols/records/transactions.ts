/**
 * OGC API – Records transactions (create, replace, delete of items) and the bulk ingest
 * endpoint, for tokens with the write role. Mounted before the Records router and the request
 * validator: POST …/items is a create only when the body is a GeoJSON Feature or
 * FeatureCollection, or XML; anything else (a CQL2 JSON filter) falls through to the search.
 *
 * Embedded mode applies the write at once (201/200/204 with a per-record summary) and logs it in
 * the ingest log as a job of queue "http"; scaled mode enqueues a job and answers 202 with a
 * link to it. Bad records: 400 naming them, nothing written.
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { InvalidRecordError } from '../../../../shared/errors/index.js';
import {
  exceedsJsonDepth,
  jsonDepthMessage,
} from '../../../../shared/records/formats/json/json-depth.js';
import { charsetOf, decodeXml, looksLikeXml } from '../../../../shared/xml/index.js';
import type { AuthMiddleware } from '../../middleware/auth.js';
import {
  deleteRecord,
  logAppliedWrite,
  parseRequestRecords,
  upsertRecords,
  type WriteOutcome,
  type WriteTarget,
} from '../../commands/write-records.js';
import { COLLECTION_ID, jobUrl, recordUrl } from '../../common/urls.js';
import type { CommandContext } from '../../commands/context.js';

export interface TransactionDependencies extends CommandContext {
  auth: AuthMiddleware;
}

const XML_TYPES = ['application/xml', 'text/xml', 'application/*+xml'];
const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl'];
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Tells whether a POST …/items body is a record to create (not a CQL2 filter to search with). */
export function isCreateBody(request: Request): boolean {
  if (typeof request.body === 'string') return request.body.trimStart().startsWith('<');
  if (Buffer.isBuffer(request.body)) return looksLikeXml(request.body);
  const body = request.body as { type?: unknown } | undefined;
  return body?.type === 'Feature' || body?.type === 'FeatureCollection';
}

/** The raw text of a request body, whichever parser read it. */
function bodyText(request: Request): string {
  const refusal = request.res?.locals.jsonRefusal as string | undefined;
  if (refusal !== undefined) throw new InvalidRecordError(refusal);
  if (typeof request.body === 'string') return request.body;
  if (Buffer.isBuffer(request.body)) {
    const charset = charsetOf(request.headers['content-type']);
    return decodeXml(request.body, charset === undefined ? {} : { charset });
  }
  if (request.body === undefined || request.body === null)
    throw new InvalidRecordError('the request has no body (send JSON, NDJSON or XML)');
  return JSON.stringify(request.body);
}

/** Sends a write outcome: 202 + job link when queued, else `appliedStatus` with the summary. */
function sendOutcome(
  request: Request,
  response: Response,
  outcome: WriteOutcome,
  appliedStatus: number,
  logEntry?: string,
): void {
  if (outcome.mode === 'queued') {
    const href = jobUrl(request.publicBaseUrl, outcome.jobId);
    response
      .status(202)
      .location(href)
      .json({
        status: 'queued',
        jobId: outcome.jobId,
        records: outcome.records,
        links: [{ rel: 'monitor', type: 'application/json', href }],
      });
    return;
  }
  if (appliedStatus === 204) {
    response.status(204).end();
    return;
  }
  const first = outcome.records[0];
  if (appliedStatus === 201 && outcome.records.length === 1 && first)
    response.location(recordUrl(request.publicBaseUrl, first.id));
  response.status(appliedStatus).json({
    status: 'applied',
    jobId: logEntry,
    written: outcome.records.length,
    records: outcome.records.map((record) => ({
      ...record,
      href: recordUrl(request.publicBaseUrl, record.id),
    })),
  });
}

/** Builds the router for item writes and bulk ingest (mounted at /catalogue). */
export function createTransactionsRouter(dependencies: TransactionDependencies): Router {
  const { config, backend, auth } = dependencies;
  const router = Router();
  const itemsPath = `/collections/${COLLECTION_ID}/items`;
  const maxBytes = config.limits.bodyBytes;
  // XML as bytes, decoded in the encoding it declares (shared/xml/decode.ts); NDJSON as UTF-8.
  const readXml = express.raw({ type: XML_TYPES, limit: maxBytes });
  const readNdjson = express.text({ type: NDJSON_TYPES, limit: maxBytes });
  const readText = (request: Request, response: Response, next: NextFunction): void =>
    readXml(request, response, (error?: unknown) =>
      error ? next(error) : readNdjson(request, response, next),
    );
  // This router is mounted before the app's JSON parser, so that PUT and bulk ingest check the
  // token before reading a body: without one, a garbage body is a 401, never parsed.
  const maxDepth = config.limits.jsonDepth;
  const readJson = express.json({
    type: JSON_TYPES,
    limit: maxBytes,
    // Measured on the bytes before JSON.parse, and refused by bodyText when the body is read as
    // records: re-serialising a record nested thousands deep would overflow the stack. A CQL2
    // search body on POST …/items is left to the filter's own limits.
    verify: (_request, response, bytes) => {
      if (exceedsJsonDepth(bytes, maxDepth))
        (response as unknown as Response).locals.jsonRefusal = jsonDepthMessage(maxDepth);
    },
  });
  const target = (request: Request): WriteTarget => ({
    backend,
    queue: dependencies.queue(),
    batchSize: config.worker.batchSize,
    requestedBy: request.auth?.subject,
  });
  const finish = async (
    request: Request,
    response: Response,
    outcome: WriteOutcome,
    appliedStatus: number,
    started: Date,
  ): Promise<void> => {
    const logEntry =
      outcome.mode === 'applied'
        ? await logAppliedWrite(dependencies.ingestLog(), {
            read: outcome.records.length,
            written: outcome.records.filter((record) => record.status !== 'deleted').length,
            deleted: outcome.records.filter((record) => record.status === 'deleted').length,
            requestedBy: request.auth?.subject,
            started,
          })
        : undefined;
    sendOutcome(request, response, outcome, appliedStatus, logEntry);
  };
  const onlyCreates = (request: Request, _response: Response, next: NextFunction): void =>
    isCreateBody(request) ? next() : next('route');

  // POST …/items is also the public CQL2 search: the body decides, so it is read first.
  router.post(
    itemsPath,
    readJson,
    readText,
    onlyCreates,
    auth.writeAccess,
    async (request, response) => {
      const started = new Date();
      const content = bodyText(request);
      const records = parseRequestRecords(content, { name: 'request body', maxBytes, maxDepth });
      const outcome = await upsertRecords(
        target(request),
        records,
        { name: 'request body', content },
        { mustBeNew: true },
      );
      await finish(request, response, outcome, 201, started);
    },
  );

  router.put(
    `${itemsPath}/:recordId`,
    auth.writeAccess,
    readJson,
    readText,
    async (request, response) => {
      const started = new Date();
      const id = String(request.params.recordId);
      const content = bodyText(request);
      const records = parseRequestRecords(content, { name: 'request body', maxBytes, maxDepth });
      if (records.length !== 1 || records[0]?.id !== id)
        throw new InvalidRecordError(
          `PUT …/items/${id} needs one record whose id is "${id}" (got ${records.map((r) => `"${r.id}"`).join(', ')})`,
        );
      const outcome = await upsertRecords(target(request), records, {
        name: 'request body',
        content,
      });
      const created = outcome.mode === 'applied' && outcome.records[0]?.status === 'created';
      await finish(request, response, outcome, created ? 201 : 200, started);
    },
  );

  router.delete(`${itemsPath}/:recordId`, auth.writeAccess, async (request, response) => {
    const started = new Date();
    const outcome = await deleteRecord(target(request), String(request.params.recordId));
    await finish(request, response, outcome, 204, started);
  });

  router.post('/admin/ingest', auth.writeAccess, readJson, readText, async (request, response) => {
    const started = new Date();
    const content = bodyText(request);
    const records = parseRequestRecords(content, { name: 'request body', maxBytes, maxDepth });
    const outcome = await upsertRecords(target(request), records, {
      name: 'request body',
      content,
    });
    await finish(request, response, outcome, 200, started);
  });

  return router;
}
