/**
 * Sessions of operators signed in to the admin HTML pages. The browser holds only a random
 * session id in an HttpOnly, SameSite=Lax cookie (Secure when the site is served over https);
 * the tokens stay on the server (shared/auth/session-store: this process's memory in embedded
 * mode, Redis in scaled mode, so any API process serves any browser). A sign-in in progress lives
 * only in a second short-lived cookie, sealed (shared/auth/sign-in-state.ts): nothing is kept on
 * the server until the provider's callback, so a flood of anonymous sign-in starts stores
 * nothing and evicts no one, and the cookie binds the sign-in to the browser that started it,
 * so a callback link made by someone else cannot sign a victim in (login CSRF).
 *
 * Every request re-checks the session's access token with the SAME verifier, audience rule
 * and role requirement as bearer tokens, refreshing it first when it is about to expire. A
 * refresh the provider refuses ends the session; the caller then starts a new sign-in.
 */
import type { Request, Response } from 'express';
import type { SignInConfig } from '../../../shared/config/index.js';
import { ForbiddenError, UnauthorizedError } from '../../../shared/auth/errors.js';
import type { OidcSignIn, SessionTokens } from '../../../shared/auth/oidc-sign-in.js';
import { ExpiringStore, type SessionStore } from '../../../shared/auth/session-store.js';
import {
  processSecret,
  SignInStateSealer,
  type SecretSource,
} from '../../../shared/auth/sign-in-state.js';
import { SessionEndedError, SignInFailedError } from '../../../shared/auth/sign-in-errors.js';
import type { TokenVerifier, VerifiedToken } from '../../../shared/auth/verify.js';
import { checkRequirement, type AuthRequirement } from './auth.js';

/** Where the admin pages live, relative to the deployment's base URL. */
export const ADMIN_PATH = '/catalogue/admin';
const SESSION_COOKIE = 'cairn_admin_session';
const SIGN_IN_COOKIE = 'cairn_admin_sign_in';
/** How long a browser may take at the provider's login page. */
const SIGN_IN_SECONDS = 600;
/** Cap on the sessions a store keeps (the oldest go first beyond it). */
export const MAX_SESSIONS = 10_000;
/** Refresh this long before expiry (at most a quarter of the token's lifetime). */
const REFRESH_MARGIN_MS = 10_000;

/** A signed-in browser's tokens, as kept in the session store (plain data: JSON in Redis). */
export interface Session {
  tokens: SessionTokens;
  /** When the current access token was obtained (ms), to size the refresh margin. */
  obtainedAt: number;
}

/** Where sessions are kept (default: this process's memory). */
export interface AdminSessionStores {
  sessions: SessionStore<Session>;
}

/** The signed-in operator of a request. */
export interface AdminIdentity {
  token: VerifiedToken;
  userName: string;
}

export interface AdminSessionsOptions {
  signIn: SignInConfig;
  provider: OidcSignIn;
  verifier: TokenVerifier;
  /** What the session's token must hold (the admin endpoints' role). */
  requirement: AuthRequirement;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Shared stores (Redis in scaled mode); default: in-process stores. */
  stores?: AdminSessionStores | undefined;
  /**
   * The secret sealing sign-in state cookies, the same on every API process (configured, or
   * shared through Redis); default: a random secret of this process.
   */
  signInSecret?: SecretSource | undefined;
}

/** Session and sign-in state of the admin pages (see the module comment). */
export class AdminSessions {
  private readonly sessions: SessionStore<Session>;
  private readonly signIns: SignInStateSealer;
  private readonly now: () => number;
  /** Refreshes in flight in this process, by session id, shared by concurrent requests. */
  private readonly refreshing = new Map<string, Promise<Session>>();

  constructor(private readonly options: AdminSessionsOptions) {
    this.now = options.now ?? Date.now;
    this.sessions =
      options.stores?.sessions ?? new ExpiringStore({ maxEntries: MAX_SESSIONS, now: this.now });
    this.signIns = new SignInStateSealer(options.signInSecret ?? processSecret(), this.now);
  }

  /**
   * The request's operator, or undefined when the browser has no live session. Throws
   * ForbiddenError when the session's token fails the audience rule or lacks the role.
   */
  async authenticate(request: Request, response: Response): Promise<AdminIdentity | undefined> {
    const id = readCookie(request, SESSION_COOKIE);
    let session = await this.sessions.get(id);
    if (!id || !session) return undefined;
    response.locals.adminUser = session.tokens.userName; // for the error page's sign-out button
    try {
      session = await this.ensureFresh(id, session);
    } catch (error) {
      if (!(error instanceof SessionEndedError)) throw error;
      request.log.info('admin session ended', { reason: error.message });
      await this.sessions.delete(id);
      response.clearCookie(SESSION_COOKIE, this.cookieOptions(request));
      return undefined;
    }
    let token: VerifiedToken;
    try {
      token = await this.options.verifier.verify(session.tokens.accessToken);
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      const reason = error.message.replace(/^Invalid bearer token: /, '');
      throw new ForbiddenError(`Your sign-in is not accepted by this catalogue: ${reason}`);
    }
    checkRequirement(token, this.options.requirement);
    return { token, userName: session.tokens.userName };
  }

  /** Sends the browser to the provider's login, to come back to `returnTo` (a local path). */
  async beginSignIn(request: Request, response: Response, returnTo: string): Promise<void> {
    const { url, pending } = await this.options.provider.begin(
      `${this.baseUrl(request)}${ADMIN_PATH}/callback`,
      returnTo,
    );
    const sealed = await this.signIns.seal(pending, this.now() + SIGN_IN_SECONDS * 1000);
    response.cookie(SIGN_IN_COOKIE, sealed, {
      ...this.cookieOptions(request),
      maxAge: SIGN_IN_SECONDS * 1000,
    });
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(303, url);
  }

  /** The provider's redirect back: validates it, opens a session, returns to the page. */
  async completeSignIn(request: Request, response: Response): Promise<void> {
    const pending = await this.signIns.open(readCookie(request, SIGN_IN_COOKIE));
    response.clearCookie(SIGN_IN_COOKIE, this.cookieOptions(request));
    if (!pending)
      throw new SignInFailedError(
        'no sign-in is in progress in this browser (it expired or was started elsewhere); please sign in again',
      );
    const query = new URL(request.originalUrl, 'http://callback.invalid').searchParams;
    if (query.get('state') !== pending.state)
      throw new SignInFailedError('the response does not belong to this browser’s sign-in (state)');
    const tokens = await this.options.provider.complete(query, pending);
    // A new id for every sign-in (no session fixation); the browser's old session ends.
    await this.sessions.delete(readCookie(request, SESSION_COOKIE));
    const ttlMs = this.options.signIn.sessionTtlSeconds * 1000;
    const id = await this.sessions.add({ tokens, obtainedAt: this.now() }, this.now() + ttlMs);
    response.cookie(SESSION_COOKIE, id, { ...this.cookieOptions(request), maxAge: ttlMs });
    request.log.info('admin sign-in', { user: tokens.userName, subject: tokens.subject });
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(303, `${this.baseUrl(request)}${pending.returnTo}`);
  }

  /** Ends the session here and at the provider (RP-initiated logout), then says so. */
  async signOut(request: Request, response: Response): Promise<void> {
    const session = await this.sessions.take(readCookie(request, SESSION_COOKIE));
    response.clearCookie(SESSION_COOKIE, this.cookieOptions(request));
    const signedOut = `${this.baseUrl(request)}${ADMIN_PATH}/signed-out`;
    const providerLogout = session
      ? await this.options.provider.endSessionUrl(session.tokens.idToken, signedOut)
      : undefined;
    if (session) request.log.info('admin sign-out', { user: session.tokens.userName });
    response.redirect(303, providerLogout ?? signedOut);
  }

  /**
   * The session with an access token that is not about to expire: refreshed (and written back
   * to the store) when needed, one refresh per session at once in this process.
   */
  private async ensureFresh(id: string, session: Session): Promise<Session> {
    const { accessExpiresAt } = session.tokens;
    const margin = Math.min(REFRESH_MARGIN_MS, (accessExpiresAt - session.obtainedAt) / 4);
    if (accessExpiresAt - margin > this.now()) return session;
    let refresh = this.refreshing.get(id);
    if (!refresh) {
      refresh = this.options.provider
        .refresh(session.tokens)
        .then(async (tokens) => {
          const fresh = { tokens, obtainedAt: this.now() };
          await this.sessions.replace(id, fresh);
          return fresh;
        })
        .finally(() => this.refreshing.delete(id));
      this.refreshing.set(id, refresh);
    }
    return refresh;
  }

  /** The base URL the provider redirects to (configured, else the request's own). */
  private baseUrl(request: Request): string {
    return this.options.signIn.redirectBase ?? request.publicBaseUrl;
  }

  private cookieOptions(request: Request) {
    const base = new URL(this.baseUrl(request));
    return {
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: base.protocol === 'https:',
      path: `${base.pathname.replace(/\/+$/, '')}${ADMIN_PATH}`,
    };
  }
}

/**
 * One cookie's value from the Cookie header. Cairn reads only its own two cookies, whose
 * values are base64url (an id, a sealed sign-in), so no decoding is needed (Express's `response.cookie` sets them).
 */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
