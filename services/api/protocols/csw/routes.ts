/**
 * CSW 2.0.2 / 3.0.0 at /catalogue/csw: GET with KVP, POST with an XML request (or a form with
 * KVP). Thin: read the request, parse, execute, send. A GET without parameters returns the
 * capabilities, or the OpenSearch description when the Accept header prefers it.
 */
import express, { Router, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { preferredMediaType } from '../../common/negotiation.js';
import {
  charsetOf,
  decodeXml,
  parseXml,
  XmlParseError,
  type XmlDocument,
} from '../../../../shared/xml/index.js';
import { CswError } from './csw-errors.js';
import { DEFAULT_VERSION, OPENSEARCH_DESCRIPTION } from './csw-model.js';
import { setCswVersion } from './errors.js';
import { describeOpenSearch } from '../opensearch/describe.js';
import { executeCswRequest } from './operations.js';
import { guessKvpVersion, parseCswKvp, readKvp, type Kvp } from './parse.js';
import { parseCswXml, versionOfDocument } from './parse-post.js';
import type { CswResponse } from './present.js';
import type { CswParseContext } from './request.js';
import {
  harvestDocumentFromKvp,
  isTransactionDocument,
  type CswTransactionHandler,
} from './transaction.js';

export interface CswRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
  /** CSW-T (Transaction, Harvest), when writes are configured; else OperationNotSupported. */
  transactions?: CswTransactionHandler | undefined;
}

const OPENSEARCH_TYPES = [OPENSEARCH_DESCRIPTION, 'application/vnd.a9.opensearchdescription+xml'];
/** XML first, so that a wildcard range (any type, or application/ any) keeps the capabilities. */
const DESCRIPTION_CHOICES = ['application/xml', 'text/xml', ...OPENSEARCH_TYPES];

/** True when the Accept header ranks an OpenSearch description above CSW XML. */
export function prefersOpenSearch(accept: string | undefined): boolean {
  return OPENSEARCH_TYPES.includes(preferredMediaType(accept, DESCRIPTION_CHOICES) ?? '');
}

function send(response: Response, answer: CswResponse): void {
  response.status(answer.status).type(answer.mediaType).send(answer.body);
}

/** Builds the CSW router. */
export function createCswRouter({ config, backend, transactions }: CswRouteDependencies): Router {
  const router = Router();
  const dependencies = { config, backend };
  // Bytes, not text: an XML body is decoded in the encoding it declares (shared/xml/decode.ts).
  const readBody = express.raw({ type: () => true, limit: config.limits.bodyBytes });

  const context = (request: Request): CswParseContext => ({
    defaultLimit: config.limits.defaultLimit,
    maxLimit: config.limits.maxLimit,
    maxBytes: config.limits.bodyBytes,
    query: config.query,
    accept: request.headers.accept,
  });

  const handleKvp = async (request: Request, response: Response, kvp: Kvp): Promise<void> => {
    setCswVersion(response, guessKvpVersion(kvp.values));
    const facts = { baseUrl: request.publicBaseUrl, scope: request.searchScope };
    if (kvp.entries.length === 0 && prefersOpenSearch(request.headers.accept)) {
      return send(response, await describeOpenSearch(backend, config.service, facts.baseUrl));
    }
    if (transactions && kvp.values.request === 'Harvest') {
      const document = (): XmlDocument =>
        harvestDocumentFromKvp(kvp.values, config.limits.bodyBytes);
      return send(response, await transactions(request, response, document));
    }
    const parsed = parseCswKvp(kvp, context(request));
    setCswVersion(response, parsed.version);
    send(response, await executeCswRequest(parsed, dependencies, facts));
  };

  router.get('/', async (request, response) => {
    setCswVersion(response, DEFAULT_VERSION);
    await handleKvp(request, response, readKvp(request.query));
  });

  router.post('/', readBody, async (request, response) => {
    setCswVersion(response, DEFAULT_VERSION);
    const bytes: unknown = request.body;
    if (request.is('application/x-www-form-urlencoded') && Buffer.isBuffer(bytes)) {
      const query: Record<string, string[]> = {};
      for (const [name, value] of new URLSearchParams(bytes.toString('utf8')))
        (query[name] ??= []).push(value);
      return handleKvp(request, response, readKvp(query));
    }
    if (!Buffer.isBuffer(bytes) || bytes.toString('latin1').trim() === '') {
      throw new CswError('NoApplicableCode', 'request', 'POST needs a CSW request as an XML body');
    }
    let document;
    try {
      const charset = charsetOf(request.headers['content-type']);
      const body = decodeXml(bytes, charset === undefined ? {} : { charset });
      document = parseXml(body, { maxBytes: config.limits.bodyBytes });
    } catch (error) {
      if (error instanceof XmlParseError) {
        throw new CswError(
          'NoApplicableCode',
          'request',
          `The request body was refused: ${error.message}`,
        );
      }
      throw error;
    }
    setCswVersion(response, versionOfDocument(document) ?? DEFAULT_VERSION);
    if (transactions && isTransactionDocument(document))
      return send(response, await transactions(request, response, document));
    const parsed = parseCswXml(document, context(request));
    setCswVersion(response, parsed.version);
    send(
      response,
      await executeCswRequest(parsed, dependencies, {
        baseUrl: request.publicBaseUrl,
        scope: request.searchScope,
      }),
    );
  });

  return router;
}
