/**
 * Errors of the admin pages' browser sign-in (authorization code flow with PKCE). Their
 * messages name what went wrong in words an operator can act on and never contain a code,
 * a token or a verifier.
 */
import { CairnError, type CairnErrorOptions } from '../errors/index.js';

/** The sign-in callback cannot complete: no sign-in in progress, a state mismatch, a refusal. */
export class SignInFailedError extends CairnError {
  constructor(description: string, options: CairnErrorOptions = {}) {
    super('SIGN_IN_FAILED', 400, `Sign-in failed: ${description}`, true, options);
  }
}

/** Browser sign-in is not configured (AUTH_WEB_CLIENT_ID), so the admin pages stay closed. */
export class SignInNotConfiguredError extends CairnError {
  constructor() {
    super(
      'SIGN_IN_NOT_CONFIGURED',
      503,
      'Sign-in to the admin pages is not configured on this server (AUTH_ISSUER_URL, AUTH_CLIENT_ID and AUTH_WEB_CLIENT_ID); the pages are unavailable. The JSON endpoints still accept bearer tokens when AUTH_ISSUER_URL is set.',
      true,
    );
  }
}

/** The provider no longer honours the session's refresh token: the operator signs in again. */
export class SessionEndedError extends CairnError {
  constructor(description: string, options: CairnErrorOptions = {}) {
    super('SESSION_ENDED', 401, `Your sign-in has ended: ${description}`, true, options);
  }
}

/** A form of the admin pages was posted from another site (cross-site request forgery). */
export class CrossSiteRequestError extends CairnError {
  constructor(description: string) {
    super('CROSS_SITE_REQUEST', 403, `Refused: ${description}`, true);
  }
}
