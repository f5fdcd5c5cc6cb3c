/**
 * The HTML search form sends every field, empty ones too (`bbox=&datetime=`). Empty values
 * are invalid to the API, so an HTML request (`f=html`) carrying them is redirected (303) to
 * the same URL without them; with JavaScript off the form still works and the address bar
 * shows a clean, shareable URL. JSON requests keep the strict rules.
 */
import type { NextFunction, Request, Response } from 'express';

/** Returns the query string without empty parameters, or undefined when none is empty. */
export function dropEmptyParameters(search: string): string | undefined {
  const parameters = new URLSearchParams(search);
  let dropped = false;
  for (const [name, value] of [...parameters]) {
    if (value.trim() === '') {
      parameters.delete(name);
      dropped = true;
    }
  }
  return dropped ? parameters.toString() : undefined;
}

/** Middleware: redirects GET HTML requests with empty parameters to their cleaned URL. */
export function redirectEmptyFormFields(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  const at = request.originalUrl.indexOf('?');
  if (request.method !== 'GET' || at < 0 || request.query.f !== 'html') return next();
  const cleaned = dropEmptyParameters(request.originalUrl.slice(at + 1));
  if (cleaned === undefined) return next();
  const path = request.originalUrl.slice(0, at);
  const target = `${request.publicBaseUrl}${path}`;
  response.redirect(303, cleaned === '' ? target : `${target}?${cleaned}`);
}
