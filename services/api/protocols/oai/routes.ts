/**
 * /catalogue/oai: the OAI-PMH 2.0 data provider, GET with its arguments in the query string
 * and POST with them as an `application/x-www-form-urlencoded` form. Thin: parse, execute,
 * send. Every protocol error is an OAI-PMH `error` response with HTTP 200; anything else
 * (an unavailable backend) goes on to the app's error renderers.
 */
import { createHash, randomBytes } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import type { Config } from '../../../../shared/config/index.js';
import type { SearchBackend } from '../../../../shared/search/backend.js';
import { oaiUrl } from '../../common/urls.js';
import { OaiError } from './model.js';
import { executeOaiRequest } from './operations.js';
import { parseOaiRequest, type OaiArguments } from './parse.js';
import { presentError, type OaiEnvelope } from './present.js';

export interface OaiRouteDependencies {
  config: Readonly<Config>;
  backend: SearchBackend;
}

const XML = 'text/xml; charset=utf-8';

/**
 * The key resumption tokens are signed with: derived from OAI_TOKEN_SECRET, so every replica
 * with the same secret accepts the others' tokens; without one, random for this process.
 */
export function tokenKey(secret: string | undefined): Buffer {
  return secret === undefined
    ? randomBytes(32)
    : createHash('sha256').update(`cairn oai-pmh resumption tokens\u0000${secret}`).digest();
}

/** The arguments as text, for the response's request element. */
function echoed(args: OaiArguments): Record<string, string> {
  return Object.fromEntries(
    Object.entries(args).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Builds the OAI-PMH router. */
export function createOaiRouter({ config, backend }: OaiRouteDependencies): Router {
  const router = Router();
  const key = tokenKey(config.oai.tokenSecret);
  const readForm = express.urlencoded({
    extended: false,
    limit: config.limits.bodyBytes,
    type: () => true,
  });

  const answer = async (args: OaiArguments, request: Request, response: Response) => {
    const envelope: OaiEnvelope = {
      baseUrl: oaiUrl(request.publicBaseUrl),
      publicBaseUrl: request.publicBaseUrl,
      arguments: echoed(args),
      now: new Date().toISOString(),
    };
    let body: string;
    try {
      body = await executeOaiRequest(parseOaiRequest(args), {
        backend,
        config,
        tokenKey: key,
        envelope,
      });
    } catch (error) {
      if (!(error instanceof OaiError)) throw error;
      body = presentError(error, envelope);
    }
    response.status(200).type(XML).send(body);
  };

  router.get('/', (request, response) => answer(request.query as OaiArguments, request, response));
  router.post('/', readForm, (request, response) =>
    answer((request.body ?? {}) as OaiArguments, request, response),
  );
  return router;
}
