/**
 * HTML error pages: when the client asked for HTML (`f=html`, or a browser's Accept header
 * without `f`), errors under /catalogue are rendered as a page with the error's status; every
 * other request falls through to the JSON `{code, description}` renderer.
 */
import type { NextFunction, Request, Response } from 'express';
import type { ServiceMetadata } from '../../../shared/config/index.js';
import { describeForClient, fromHttpError, setRetryAfter } from '../middleware/errors.js';
import { negotiateFormat } from '../common/negotiation.js';
import { renderErrorPage } from './pages.js';

/** True when the request asks for HTML; a malformed `f` or Accept counts as not asking. */
export function wantsHtml(request: Request): boolean {
  try {
    const f = request.query.f;
    if (f !== undefined) return f === 'html';
    return negotiateFormat(request.headers.accept, ['json', 'html']) === 'html';
  } catch {
    return false;
  }
}

/** Builds the error middleware that renders HTML error pages for HTML requests. */
export function renderHtmlError(service: Pick<ServiceMetadata, 'title' | 'description'>) {
  return (error: unknown, request: Request, response: Response, next: NextFunction): void => {
    if (response.headersSent || !wantsHtml(request)) return next(error);
    const cairnError = fromHttpError(error);
    const described = describeForClient(cairnError, request);
    setRetryAfter(response, cairnError, described.status);
    response
      .status(described.status)
      .type('text/html; charset=utf-8')
      .send(renderErrorPage(described, { baseUrl: request.publicBaseUrl, service }));
  };
}
