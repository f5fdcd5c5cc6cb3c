/**
 * The CSW / OpenSearch error renderer: every error on these routes becomes an
 * ows:ExceptionReport in the request's version (OWS 1.0.0 for CSW 2.0.2, OWS 2.0 for 3.0) with
 * the exception code's HTTP status; unexpected errors become a generic NoApplicableCode 500,
 * logged with the request id. Installed in the app for /catalogue/csw and /catalogue/opensearch.
 */
import type { Request, Response } from 'express';
import { errorRenderer, logRequestFailure, setRetryAfter } from '../../middleware/errors.js';
import { toOwsException } from './csw-errors.js';
import { DEFAULT_VERSION, type CswVersion } from './csw-model.js';
import { guessKvpVersion } from './parse.js';
import { presentExceptionReport } from './present.js';

/** Remembers the CSW version of the request being handled, for the error renderer. */
export function setCswVersion(response: Response, version: CswVersion): void {
  response.locals.cswVersion = version;
}

function versionFor(request: Request, response: Response): CswVersion {
  const known = response.locals.cswVersion as CswVersion | undefined;
  if (known !== undefined) return known;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.query)) {
    if (typeof value === 'string') values[name.toLowerCase()] = value;
  }
  return Object.keys(values).length > 0 ? guessKvpVersion(values) : DEFAULT_VERSION;
}

/** Express error handler rendering OWS ExceptionReports. */
export const renderCswError = errorRenderer((cairnError, request, response) => {
  if (cairnError.status >= 500 || !cairnError.expose) logRequestFailure(cairnError, request);
  const exception = toOwsException(cairnError);
  setRetryAfter(response, cairnError, exception.status);
  response
    .status(exception.status)
    .type('application/xml')
    .send(presentExceptionReport(versionFor(request, response), exception));
});
