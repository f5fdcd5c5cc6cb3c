/**
 * TokenVerifier, check by check, with locally generated keys and an in-memory key resolver (no
 * I/O): each forged token differs from a valid one in exactly one respect.
 */
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import { AuthProviderUnavailableError, UnauthorizedError } from '../../../shared/auth/errors.js';
import type { SigningKeyRecord, SigningKeyResolver } from '../../../shared/auth/jwks.js';
import { extractBearerToken, TokenVerifier } from '../../../shared/auth/verify.js';
import type { SigningAlgorithm } from '../../../shared/config/index.js';

const ISSUER = 'https://id.example.org/realms/cairn';
const CLIENT_ID = 'cairn-catalogue';
const NOW = 1_800_000_000;

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });

class StaticKeys implements SigningKeyResolver {
  constructor(private readonly keys: SigningKeyRecord[]) {}
  async getKey(kid: string, alg: string): Promise<SigningKeyRecord | undefined> {
    return this.keys.find((key) => key.kid === kid && (!key.alg || key.alg === alg));
  }
}

const keys = new StaticKeys([
  { kid: 'rsa-1', alg: 'RS256', key: rsa.publicKey },
  { kid: 'rsa-ps', key: rsa.publicKey },
  { kid: 'ec-1', alg: 'ES256', key: ec.publicKey },
]);

function verifier(
  options: {
    algorithms?: SigningAlgorithm[];
    tolerance?: number;
    resolver?: SigningKeyResolver;
  } = {},
): TokenVerifier {
  return new TokenVerifier({
    issuer: ISSUER,
    clientId: CLIENT_ID,
    algorithms: options.algorithms ?? ['RS256', 'PS256', 'ES256'],
    clockToleranceSeconds: options.tolerance ?? 30,
    keys: options.resolver ?? keys,
    now: () => NOW * 1000,
  });
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: 'user-1',
    azp: 'cairn-web',
    aud: ['cairn-worker', CLIENT_ID],
    typ: 'Bearer',
    iat: NOW - 10,
    exp: NOW + 290,
    scope: 'profile ingest email',
    realm_access: { roles: ['offline_access', 'catalogue-operator'] },
    resource_access: { [CLIENT_ID]: { roles: ['editor'] }, other: { roles: ['x'] } },
    ...overrides,
  };
}

function signToken(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
  key: KeyObject = rsa.privateKey,
): string {
  const fullHeader = { alg: 'RS256', typ: 'JWT', kid: 'rsa-1', ...header };
  const input = `${b64(fullHeader)}.${b64(payload)}`;
  const alg = fullHeader.alg;
  let signature: Buffer;
  if (alg.startsWith('PS'))
    signature = sign('sha256', Buffer.from(input), {
      key,
      padding: 6, // RSA_PKCS1_PSS_PADDING
      saltLength: 32,
    });
  else if (alg.startsWith('ES'))
    signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  else signature = sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

async function rejection(token: string, v = verifier()): Promise<UnauthorizedError> {
  try {
    await v.verify(token);
  } catch (error) {
    expect(error).to.be.instanceOf(UnauthorizedError);
    return error as UnauthorizedError;
  }
  throw new Error('token was accepted');
}

describe('auth/verify: TokenVerifier', () => {
  describe('accepts', () => {
    it('a valid RS256 access token, and reads roles and scopes', async () => {
      const result = await verifier().verify(signToken(claims()));
      expect(result.subject).to.equal('user-1');
      expect(result.authorizedParty).to.equal('cairn-web');
      expect(result.audience).to.deep.equal(['cairn-worker', CLIENT_ID]);
      expect(result.clientRoles).to.deep.equal(['editor']);
      expect(result.realmRoles).to.deep.equal(['offline_access', 'catalogue-operator']);
      expect(result.scopes).to.deep.equal(['profile', 'ingest', 'email']);
      expect(result.expiresAt).to.equal(NOW + 290);
    });

    it('aud as a single string', async () => {
      const result = await verifier().verify(signToken(claims({ aud: CLIENT_ID })));
      expect(result.audience).to.deep.equal([CLIENT_ID]);
    });

    it('azp equal to the catalogue’s client id without aud (tokens issued to the catalogue)', async () => {
      const token = signToken(claims({ azp: CLIENT_ID, aud: undefined }));
      expect((await verifier().verify(token)).audience).to.deep.equal([]);
    });

    it('no sub, sid or roles (lightweight / basic-less tokens)', async () => {
      const token = signToken(
        claims({ sub: undefined, realm_access: undefined, resource_access: undefined }),
      );
      const result = await verifier().verify(token);
      expect(result.subject).to.equal(undefined);
      expect(result.clientRoles).to.deep.equal([]);
    });

    it('an RFC 9068 token: header typ at+jwt and no payload typ', async () => {
      const token = signToken(claims({ typ: undefined }), { typ: 'at+jwt' });
      expect((await verifier().verify(token)).subject).to.equal('user-1');
    });

    it('ES256 and PS256 when allowed', async () => {
      const es = signToken(claims(), { alg: 'ES256', kid: 'ec-1' }, ec.privateKey);
      expect((await verifier().verify(es)).subject).to.equal('user-1');
      const ps = signToken(claims(), { alg: 'PS256', kid: 'rsa-ps' });
      expect((await verifier().verify(ps)).subject).to.equal('user-1');
    });

    it('exp just passed or nbf just ahead, within the clock tolerance', async () => {
      await verifier().verify(signToken(claims({ exp: NOW - 20 })));
      await verifier().verify(signToken(claims({ nbf: NOW + 20 })));
    });
  });

  describe('rejects with 401 invalid_token', () => {
    it('alg none', async () => {
      const token = `${b64({ alg: 'none', typ: 'JWT', kid: 'rsa-1' })}.${b64(claims())}.`;
      const error = await rejection(token);
      expect(error.status).to.equal(401);
      expect(error.challenge).to.equal(
        'Bearer realm="cairn", error="invalid_token", error_description="signature algorithm not allowed"',
      );
    });

    it('HS256 with the public key (PEM) as the HMAC secret', async () => {
      const header = b64({ alg: 'HS256', typ: 'JWT', kid: 'rsa-1' });
      const input = `${header}.${b64(claims())}`;
      const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' });
      const token = `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
      expect((await rejection(token)).message).to.match(/algorithm not allowed/);
    });

    it('an algorithm outside the configured allow-list', async () => {
      const token = signToken(claims(), { alg: 'ES256', kid: 'ec-1' }, ec.privateKey);
      const error = await rejection(token, verifier({ algorithms: ['RS256'] }));
      expect(error.message).to.match(/algorithm not allowed/);
    });

    it('a header alg that does not match the key type (RS256 header, EC key id)', async () => {
      const token = signToken(claims(), { alg: 'RS256', kid: 'ec-1' });
      expect((await rejection(token)).message).to.match(/key not known/);
    });

    it('a wrong issuer', async () => {
      const token = signToken(claims({ iss: 'https://evil.example.org/realms/cairn' }));
      expect((await rejection(token)).message).to.match(/issuer not accepted/);
    });

    it('expired beyond the tolerance', async () => {
      const token = signToken(claims({ exp: NOW - 31 }));
      expect((await rejection(token)).message).to.match(/token expired/);
      const strict = verifier({ tolerance: 0 });
      expect((await rejection(signToken(claims({ exp: NOW - 1 })), strict)).message).to.match(
        /expired/,
      );
    });

    it('nbf in the future beyond the tolerance', async () => {
      const token = signToken(claims({ nbf: NOW + 120 }));
      expect((await rejection(token)).message).to.match(/not yet valid/);
    });

    it('no exp', async () => {
      expect((await rejection(signToken(claims({ exp: undefined })))).message).to.match(
        /no expiry/,
      );
    });

    it('an unknown kid, and no kid', async () => {
      expect((await rejection(signToken(claims(), { kid: 'other' }))).message).to.match(
        /key not known/,
      );
      expect((await rejection(signToken(claims(), { kid: undefined }))).message).to.match(
        /no key id/,
      );
    });

    it('a tampered payload', async () => {
      const [header, , signature] = signToken(claims({ scope: 'profile' })).split('.');
      const tampered = `${header}.${b64(claims({ scope: 'profile ingest' }))}.${signature}`;
      expect((await rejection(tampered)).message).to.match(/signature does not verify/);
    });

    it('a signature by another key under a known kid', async () => {
      const token = signToken(claims(), {}, attacker.privateKey);
      expect((await rejection(token)).message).to.match(/signature does not verify/);
    });

    it('typ Refresh, ID or Offline, or no typ at all', async () => {
      for (const typ of ['Refresh', 'ID', 'Offline', undefined]) {
        const error = await rejection(signToken(claims({ typ })));
        expect(error.message, String(typ)).to.match(/not an access token/);
      }
    });

    it('a token for another audience (neither azp nor aud names the catalogue)', async () => {
      const token = signToken(claims({ aud: ['cairn-downstream', 'account'] }));
      expect((await rejection(token)).message).to.match(/not intended for this service/);
    });

    it('a header with crit, whatever it names (no critical extension is understood)', async () => {
      const cases: Record<string, unknown>[] = [
        { crit: ['exp'], exp: NOW + 60 },
        { crit: ['urn:example:unknown'], 'urn:example:unknown': true },
        { crit: ['b64'], b64: true },
        { crit: [] },
        { crit: 'nonsense' },
      ];
      for (const header of cases) {
        const error = await rejection(signToken(claims(), header));
        expect(error.status, JSON.stringify(header)).to.equal(401);
        expect(error.message, JSON.stringify(header)).to.match(
          /critical header parameters \(crit\)/,
        );
      }
    });

    it('not a JWS at all', async () => {
      for (const token of ['abc', 'a.b', 'a.b.c', `${b64({ typ: 'JWT' })}.${b64(claims())}.x`]) {
        expect((await rejection(token)).message, token).to.match(/not a well-formed JWS/);
      }
    });
  });

  it('passes the key store’s 503 through (never accepts when keys are unavailable)', async () => {
    const down: SigningKeyResolver = {
      getKey: async () => {
        throw new AuthProviderUnavailableError('down');
      },
    };
    try {
      await verifier({ resolver: down }).verify(signToken(claims()));
      expect.fail('accepted');
    } catch (error) {
      expect(error).to.be.instanceOf(AuthProviderUnavailableError);
      expect((error as AuthProviderUnavailableError).status).to.equal(503);
    }
  });

  it('refuses to be configured with HS* or none', () => {
    for (const algorithm of ['HS256', 'none']) {
      expect(() => verifier({ algorithms: [algorithm as SigningAlgorithm] })).to.throw(
        /may not be allowed/,
      );
    }
  });
});

describe('auth/verify: extractBearerToken', () => {
  it('returns the token of a Bearer header (scheme case-insensitive)', () => {
    expect(extractBearerToken('Bearer abc.def.ghi')).to.equal('abc.def.ghi');
    expect(extractBearerToken('bearer abc.def.ghi')).to.equal('abc.def.ghi');
  });

  it('returns undefined for no header or another scheme', () => {
    expect(extractBearerToken(undefined)).to.equal(undefined);
    expect(extractBearerToken('Basic dXNlcjpwYXNz')).to.equal(undefined);
  });

  it('throws 401 for a malformed Bearer header', () => {
    for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a"b']) {
      expect(() => extractBearerToken(header), header).to.throw(UnauthorizedError);
    }
  });
});
