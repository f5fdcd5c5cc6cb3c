/**
 * Route protection without a socket: the middleware is called with minimal request/response
 * objects, and tokens are signed with a local key resolved in memory.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { expect } from 'chai';
import type { NextFunction, Request, Response } from 'express';
import {
  AuthNotConfiguredError,
  buildBearerChallenge,
  ForbiddenError,
  UnauthorizedError,
} from '../../../shared/auth/errors.js';
import { TokenVerifier, type VerifiedToken } from '../../../shared/auth/verify.js';
import { loadConfig, type AuthConfig } from '../../../shared/config/index.js';
import { CairnError } from '../../../shared/errors/index.js';
import {
  applyAuthChallenge,
  authChallengeHeaders,
  checkRequirement,
  createAuthMiddleware,
} from '../../../services/api/middleware/auth.js';

const ISSUER = 'https://id.example.org/realms/cairn';
const keyPair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const verifier = new TokenVerifier({
  issuer: ISSUER,
  clientId: 'cairn-catalogue',
  algorithms: ['RS256'],
  clockToleranceSeconds: 30,
  keys: { getKey: async (kid) => (kid === 'k' ? { kid, key: keyPair.publicKey } : undefined) },
});

function token(claims: Record<string, unknown>): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64({ alg: 'RS256', kid: 'k' })}.${b64({
    iss: ISSUER,
    aud: 'cairn-catalogue',
    typ: 'Bearer',
    sub: 'user-1',
    exp: Math.floor(Date.now() / 1000) + 300,
    ...claims,
  })}`;
  return `${input}.${sign('sha256', Buffer.from(input), keyPair.privateKey).toString('base64url')}`;
}

function authConfig(environment: Record<string, string> = {}): AuthConfig {
  return loadConfig({
    AUTH_ISSUER_URL: ISSUER,
    AUTH_CLIENT_ID: 'cairn-catalogue',
    ...environment,
  }).auth;
}

/** Runs one middleware and resolves with what it passed to next(). */
function run(
  handler: (request: Request, response: Response, next: NextFunction) => void,
  authorization?: string,
): Promise<{ error: unknown; request: Request }> {
  const request = { headers: authorization ? { authorization } : {} } as Request;
  return new Promise((resolve) => {
    handler(request, {} as Response, (error?: unknown) => resolve({ error, request }));
  });
}

const verified = (overrides: Partial<VerifiedToken>): VerifiedToken => ({
  audience: ['cairn-catalogue'],
  clientRoles: [],
  realmRoles: [],
  scopes: [],
  expiresAt: 0,
  claims: {},
  ...overrides,
});

describe('api/middleware/auth', () => {
  describe('without an identity provider (deny by default)', () => {
    const auth = createAuthMiddleware(loadConfig({}).auth);

    it('protected routes fail with 503 AUTH_NOT_CONFIGURED, even with a token', async () => {
      for (const handler of [
        auth.writeAccess,
        auth.requireAuth(),
        auth.requireAuth({ role: 'x' }),
      ]) {
        const { error } = await run(handler, `Bearer ${token({})}`);
        expect(error).to.be.instanceOf(AuthNotConfiguredError);
        expect((error as CairnError).status).to.equal(503);
      }
    });

    it('reads stay public', async () => {
      expect((await run(auth.readAccess)).error).to.equal(undefined);
    });
  });

  describe('with a provider', () => {
    const auth = createAuthMiddleware(authConfig({ AUTH_WRITE_SCOPE: 'ingest' }), { verifier });

    it('writes need the editor role (client role) or the ingest scope', async () => {
      const editor = await run(
        auth.writeAccess,
        `Bearer ${token({ resource_access: { 'cairn-catalogue': { roles: ['editor'] } } })}`,
      );
      expect(editor.error).to.equal(undefined);
      expect(editor.request.auth?.clientRoles).to.deep.equal(['editor']);
      const machine = await run(auth.writeAccess, `Bearer ${token({ scope: 'profile ingest' })}`);
      expect(machine.error).to.equal(undefined);
      const reader = await run(auth.writeAccess, `Bearer ${token({ scope: 'profile' })}`);
      expect(reader.error).to.be.instanceOf(ForbiddenError);
      expect(reader.request.auth).to.equal(undefined);
    });

    it('a role of another client does not count', async () => {
      const other = await run(
        auth.writeAccess,
        `Bearer ${token({ resource_access: { 'cairn-downstream': { roles: ['editor'] } } })}`,
      );
      expect(other.error).to.be.instanceOf(ForbiddenError);
    });

    it('no token → 401 with a bare challenge; a bad token → 401 invalid_token', async () => {
      const missing = await run(auth.writeAccess);
      expect(missing.error).to.be.instanceOf(UnauthorizedError);
      expect((missing.error as UnauthorizedError).challenge).to.equal('Bearer realm="cairn"');
      const basic = await run(auth.writeAccess, 'Basic dXNlcjpwYXNz');
      expect((basic.error as UnauthorizedError).challenge).to.equal('Bearer realm="cairn"');
      const bad = await run(auth.writeAccess, 'Bearer abc.def.ghi');
      expect((bad.error as UnauthorizedError).challenge).to.match(/error="invalid_token"/);
    });

    it('readAccess is open unless AUTH_READS_REQUIRE_TOKEN=true', async () => {
      expect((await run(auth.readAccess)).error).to.equal(undefined);
      const closed = createAuthMiddleware(authConfig({ AUTH_READS_REQUIRE_TOKEN: 'true' }), {
        verifier,
      });
      expect((await run(closed.readAccess)).error).to.be.instanceOf(UnauthorizedError);
      const withToken = await run(closed.readAccess, `Bearer ${token({})}`);
      expect(withToken.error).to.equal(undefined);
      expect(withToken.request.auth?.subject).to.equal('user-1');
    });
  });

  describe('checkRequirement', () => {
    it('accepts a client role, a realm role or the scope; nothing required → any token', () => {
      checkRequirement(verified({ clientRoles: ['editor'] }), { role: 'editor' });
      checkRequirement(verified({ realmRoles: ['editor'] }), { role: 'editor' });
      checkRequirement(verified({ scopes: ['ingest'] }), { role: 'editor', scope: 'ingest' });
      checkRequirement(verified({}), {});
    });

    it('refuses with 403 insufficient_scope naming what is needed', () => {
      try {
        checkRequirement(verified({ scopes: ['profile'] }), { role: 'editor', scope: 'ingest' });
        expect.fail('accepted');
      } catch (error) {
        expect(error).to.be.instanceOf(ForbiddenError);
        expect((error as ForbiddenError).status).to.equal(403);
        expect((error as ForbiddenError).message).to.equal(
          'This operation requires the role "editor" or scope "ingest"',
        );
        expect((error as ForbiddenError).challenge).to.equal(
          'Bearer realm="cairn", error="insufficient_scope", error_description="This operation requires the role  editor  or scope  ingest ", scope="ingest"',
        );
      }
    });
  });

  describe('challenge headers', () => {
    function fakeResponse() {
      const headers: Record<string, string> = {};
      return {
        headers,
        response: {
          headersSent: false,
          setHeader: (name: string, value: string) => {
            headers[name] = value;
          },
        } as unknown as Response,
      };
    }

    it('applyAuthChallenge sets WWW-Authenticate for challenge errors only', () => {
      const { headers, response } = fakeResponse();
      applyAuthChallenge(new CairnError('X', 400, 'x', true), response);
      expect(headers).to.deep.equal({});
      applyAuthChallenge(new UnauthorizedError('token expired'), response);
      expect(headers['WWW-Authenticate']).to.equal(
        'Bearer realm="cairn", error="invalid_token", error_description="token expired"',
      );
    });

    it('authChallengeHeaders passes the error on', () => {
      const { headers, response } = fakeResponse();
      const error = new UnauthorizedError();
      let passed: unknown;
      authChallengeHeaders(error, {} as Request, response, (value?: unknown) => {
        passed = value;
      });
      expect(passed).to.equal(error);
      expect(headers['WWW-Authenticate']).to.equal('Bearer realm="cairn"');
    });

    it('buildBearerChallenge keeps descriptions within the RFC 6750 character set', () => {
      expect(buildBearerChallenge('invalid_token', 'bad "quoted" \\ value\n')).to.equal(
        'Bearer realm="cairn", error="invalid_token", error_description="bad  quoted    value "',
      );
    });
  });
});
