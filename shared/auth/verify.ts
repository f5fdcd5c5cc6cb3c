/**
 * Bearer access-token verification: no `crit` header, signature by `kid` from the provider's
 * JWKS, an algorithm allow-list, `iss`, `exp`/`nbf` with a small clock tolerance, the access-token `typ`, then the
 * audience rule (accept only when `azp` is the catalogue's client id or `aud` contains it).
 *
 * Every refusal is an UnauthorizedError (401 invalid_token) whose description names the check
 * that failed, never the token; an unreachable key set is an AuthProviderUnavailableError (503).
 */
import type { KeyObject } from 'node:crypto';
import jwt, { type Jwt, type JwtPayload } from 'jsonwebtoken';
import type { AuthProviderConfig, SigningAlgorithm } from '../config/index.js';
import { UnauthorizedError } from './errors.js';
import { createJwksFetcher, JwksKeyStore, type SigningKeyResolver } from './jwks.js';

/** What a verified token says about its bearer, for authorization and auditing. */
export interface VerifiedToken {
  /** `sub`: the user (or service account); absent in lightweight tokens. */
  subject?: string | undefined;
  /** `azp`: the client the token was issued to. */
  authorizedParty?: string | undefined;
  audience: string[];
  /** Client roles under the catalogue's client id (`resource_access[clientId].roles`). */
  clientRoles: string[];
  /** Realm roles (`realm_access.roles`). */
  realmRoles: string[];
  /** Space-separated `scope`, split. */
  scopes: string[];
  /** `exp`, in seconds since the epoch. */
  expiresAt: number;
  /** Every claim, for callers that need more (never log this object whole). */
  claims: JwtPayload;
}

export interface TokenVerifierOptions {
  issuer: string;
  clientId: string;
  algorithms: readonly SigningAlgorithm[];
  clockToleranceSeconds: number;
  keys: SigningKeyResolver;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: (() => number) | undefined;
}

/** Access-token `typ` values accepted in the payload (Keycloak) or header (RFC 9068). */
const BEARER_PAYLOAD_TYPES = new Set(['bearer']);
const AT_JWT_HEADER_TYPES = new Set(['at+jwt', 'application/at+jwt']);

/** Verifies bearer access tokens for one issuer and one audience (the catalogue's client id). */
export class TokenVerifier {
  private readonly now: () => number;
  private readonly allowed: ReadonlySet<string>;

  constructor(private readonly options: TokenVerifierOptions) {
    this.now = options.now ?? Date.now;
    this.allowed = new Set(options.algorithms);
    for (const algorithm of this.allowed) {
      if (!/^(RS|PS|ES)(256|384|512)$/.test(algorithm))
        throw new Error(`Algorithm ${algorithm} may not be allowed for bearer tokens`);
    }
  }

  /** Returns the token's verified content, or throws UnauthorizedError / AuthProviderUnavailableError. */
  async verify(token: string): Promise<VerifiedToken> {
    const decoded = decodeStructure(token);
    const { alg, kid } = decoded.header;
    // RFC 7515 §4.1.11: a recipient must reject a JWS whose crit names a parameter it does not
    // understand; Cairn understands none, so any crit (even empty or malformed) is refused.
    if ('crit' in decoded.header)
      throw new UnauthorizedError('token header names critical header parameters (crit)');
    if (!this.allowed.has(alg)) throw new UnauthorizedError(`signature algorithm not allowed`);
    if (typeof kid !== 'string' || kid === '')
      throw new UnauthorizedError('token header has no key id (kid)');
    const signingKey = await this.options.keys.getKey(kid, alg);
    if (!signingKey) throw new UnauthorizedError('signing key not known to the issuer');
    const payload = this.checkSignatureAndTimes(token, signingKey.key, alg);
    checkAccessTokenType(decoded.header.typ, payload.typ);
    const audience = toList(payload.aud);
    const authorizedParty = typeof payload.azp === 'string' ? payload.azp : undefined;
    if (authorizedParty !== this.options.clientId && !audience.includes(this.options.clientId))
      throw new UnauthorizedError('token is not intended for this service (azp/aud)');
    return {
      subject: typeof payload.sub === 'string' ? payload.sub : undefined,
      authorizedParty,
      audience,
      clientRoles: readRoles(readRecord(payload.resource_access)?.[this.options.clientId]),
      realmRoles: readRoles(payload.realm_access),
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      expiresAt: payload.exp as number,
      claims: payload,
    };
  }

  private checkSignatureAndTimes(token: string, key: KeyObject, alg: string): JwtPayload {
    let payload: JwtPayload | string;
    try {
      payload = jwt.verify(token, key, {
        algorithms: [alg as jwt.Algorithm],
        issuer: this.options.issuer,
        clockTolerance: this.options.clockToleranceSeconds,
        clockTimestamp: Math.floor(this.now() / 1000),
      });
    } catch (error) {
      throw new UnauthorizedError(describeJwtError(error), { cause: error });
    }
    if (typeof payload === 'string') throw new UnauthorizedError('token payload is not JSON');
    if (typeof payload.exp !== 'number') throw new UnauthorizedError('token has no expiry (exp)');
    return payload;
  }
}

/** Builds the verifier for a configured provider, with a JWKS key store over HTTP. */
export function createTokenVerifier(
  provider: AuthProviderConfig,
  overrides: { now?: () => number; keys?: SigningKeyResolver } = {},
): TokenVerifier {
  const keys =
    overrides.keys ??
    new JwksKeyStore({
      fetchKeys: createJwksFetcher(provider.jwksUrl, 5000, provider.jwksMaxBytes),
      cacheMs: provider.jwksCacheSeconds * 1000,
      refetchCooldownMs: provider.jwksRefetchCooldownSeconds * 1000,
      failureCooldownMs: provider.jwksFailureCooldownSeconds * 1000,
      now: overrides.now,
    });
  return new TokenVerifier({
    issuer: provider.issuer,
    clientId: provider.clientId,
    algorithms: provider.algorithms,
    clockToleranceSeconds: provider.clockToleranceSeconds,
    keys,
    now: overrides.now,
  });
}

/** Extracts the token from an `Authorization: Bearer …` header; undefined when there is none. */
export function extractBearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (match) return match[1];
  if (/^Bearer\b/i.test(header)) throw new UnauthorizedError('malformed Authorization header');
  return undefined;
}

interface DecodedHeader {
  alg: string;
  kid?: unknown;
  typ?: unknown;
}

function decodeStructure(token: string): { header: DecodedHeader } {
  let decoded: Jwt | null = null;
  if (token.split('.').length === 3) {
    try {
      decoded = jwt.decode(token, { complete: true });
    } catch {
      decoded = null;
    }
  }
  if (!decoded || typeof decoded.header?.alg !== 'string')
    throw new UnauthorizedError('token is not a well-formed JWS');
  return { header: decoded.header };
}

function checkAccessTokenType(headerType: unknown, payloadType: unknown): void {
  const header = typeof headerType === 'string' ? headerType.toLowerCase() : undefined;
  const payload = typeof payloadType === 'string' ? payloadType.toLowerCase() : undefined;
  if (payload !== undefined && !BEARER_PAYLOAD_TYPES.has(payload))
    throw new UnauthorizedError('not an access token (typ)');
  if (payload === undefined && !(header && AT_JWT_HEADER_TYPES.has(header)))
    throw new UnauthorizedError('not an access token (typ)');
}

function describeJwtError(error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return 'token expired';
  if (error instanceof jwt.NotBeforeError) return 'token not yet valid (nbf)';
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('jwt issuer invalid')) return 'issuer not accepted';
  if (message === 'invalid signature') return 'signature does not verify';
  if (message.startsWith('invalid algorithm')) return 'signature algorithm not allowed';
  return 'token cannot be verified';
}

function toList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return [];
}

function readRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function readRoles(value: unknown): string[] {
  return toList(readRecord(value)?.roles);
}
