/**
 * The specification's token-exchange scenarios, run against a configured provider through the
 * project's TokenClient. Each check states the rule, what the specification expects, what the
 * provider did, and whether the rule holds; checks whose inputs are missing are skipped with the
 * reason. Used by `scripts/token-exchange-check.ts` (the operator command) and by the real-Keycloak
 * suite. No token is ever part of a result.
 */
import {
  AudienceNotAvailableError,
  ClientNotInAudienceError,
  InvalidScopeError,
  RefreshTokenNotAllowedError,
  RequestedTokenTypeUnsupportedError,
  TokenEndpointError,
  UnsupportedExchangeParameterError,
} from './token-errors.js';
import {
  decodeUnverifiedClaims,
  GRANT_TOKEN_EXCHANGE,
  TOKEN_TYPE_ACCESS,
  TokenClient,
} from './token-exchange.js';

export interface ClientCredentials {
  id: string;
  secret?: string | undefined;
}

export interface ExchangeCheckInputs {
  tokenEndpoint: string;
  /** The exchanging (confidential) client under test, e.g. the worker. */
  client: ClientCredentials;
  /** A user and the client that mints their tokens (password grant); its tokens must name `client` in aud. */
  user?: { client: ClientCredentials; username: string; password: string } | undefined;
  /** A downstream client id that an optional scope of `client` (`audienceScope`) adds to aud. */
  audience?: string | undefined;
  audienceScope?: string | undefined;
  /** Another optional scope of `client`. */
  extraScope?: string | undefined;
  /** A scope that exists but is not linked to `client`. */
  foreignScope?: string | undefined;
  /** An existing client that no scope of `client` adds to aud. */
  unavailableAudience?: string | undefined;
  /** A confidential client without token exchange. */
  noExchangeClient?: ClientCredentials | undefined;
  /** A public client (defaults to the user's client when that has no secret). */
  publicClient?: string | undefined;
  /** An exchange-enabled client without refresh-in-exchange, and the user-client scope that puts it in aud. */
  noRefreshClient?: (ClientCredentials & { subjectScope?: string | undefined }) | undefined;
}

export interface CheckResult {
  rule: string;
  expected: string;
  observed: string;
  /** undefined: skipped (see `observed` for why). */
  ok: boolean | undefined;
  /** When the provider differs from the specification (`ok` false): how, and why. */
  differs?: string;
}

interface Check {
  rule: string;
  run: (context: CheckContext, rule: string) => Promise<CheckResult>;
}

interface CheckContext {
  inputs: ExchangeCheckInputs;
  requester: TokenClient;
  /** A fresh user access token, optionally with extra scopes on the user's client. */
  subject: (scopes?: string[]) => Promise<string>;
}

const listOf = (value: unknown): string[] =>
  (typeof value === 'string'
    ? value.split(' ')
    : Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : []
  )
    .filter(Boolean)
    .sort();
const claim = (token: string, name: string): unknown => decodeUnverifiedClaims(token)?.[name];
const audOf = (token: string): string[] => {
  const aud = claim(token, 'aud');
  return typeof aud === 'string' ? [aud] : listOf(aud);
};
const scopesOf = (token: string): string[] => listOf(claim(token, 'scope'));
const show = (items: string[]): string => `{${items.join(', ')}}`;

/** Describes a refusal as "HTTP 400 invalid_request: …" (or the local error's message). */
function describeRefusal(error: unknown): string {
  if (error instanceof TokenEndpointError)
    return `HTTP ${error.providerStatus} ${error.oauthError}: ${error.errorDescription}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function skipped(rule: string, expected: string, needs: string): CheckResult {
  return { rule, expected, observed: `skipped: needs ${needs}`, ok: undefined };
}

function clientOf(inputs: ExchangeCheckInputs, credentials: ClientCredentials): TokenClient {
  return new TokenClient({
    tokenEndpoint: inputs.tokenEndpoint,
    clientId: credentials.id,
    clientSecret: credentials.secret,
    maxRetries: 1,
  });
}

/** Runs `call`; a refusal of type `type` holds, anything else does not. */
async function expectRefusal(
  rule: string,
  expected: string,
  call: () => Promise<unknown>,
  holds: (error: unknown) => boolean,
): Promise<CheckResult> {
  try {
    await call();
    return { rule, expected, observed: 'accepted', ok: false };
  } catch (error) {
    return { rule, expected, observed: describeRefusal(error), ok: holds(error) };
  }
}

const CHECKS: Check[] = [
  {
    rule: 'only confidential clients may exchange',
    run: async ({ inputs }, rule) => {
      const expected = 'a public client is refused';
      const publicClient =
        inputs.publicClient ??
        (inputs.user && !inputs.user.client.secret ? inputs.user.client.id : undefined);
      if (!publicClient || !inputs.user)
        return skipped(rule, expected, '--public-client and a user');
      const subjectToken = await userToken(inputs);
      return expectRefusal(
        rule,
        expected,
        () => clientOf(inputs, { id: publicClient }).exchange({ subjectToken }),
        (error) => error instanceof TokenEndpointError && error.providerStatus === 400,
      );
    },
  },
  {
    rule: 'a client without token exchange enabled is refused',
    run: async ({ inputs, subject }, rule) => {
      const expected = 'refusal';
      if (!inputs.noExchangeClient || !inputs.user)
        return skipped(rule, expected, '--no-exchange-client/--no-exchange-secret and a user');
      const subjectToken = await subject();
      const noExchange = inputs.noExchangeClient;
      return expectRefusal(
        rule,
        expected,
        () => clientOf(inputs, noExchange).exchange({ subjectToken }),
        (error) => error instanceof TokenEndpointError,
      );
    },
  },
  {
    rule: 'the exchanged token keeps the user (sub) and names the exchanging client in azp',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = `sub unchanged, azp = ${inputs.client.id}`;
      if (!inputs.user) return skipped(rule, expected, 'a user');
      const subjectToken = await subject();
      const { accessToken } = await requester.exchange({ subjectToken });
      const same = claim(accessToken, 'sub') === claim(subjectToken, 'sub');
      const azp = String(claim(accessToken, 'azp'));
      return {
        rule,
        expected,
        observed: `sub ${same ? 'unchanged' : 'CHANGED'}, azp = ${azp}`,
        ok: same && azp === inputs.client.id,
      };
    },
  },
  {
    rule: 'scope unset keeps the original scopes',
    run: async ({ inputs, requester, subject }, rule) => {
      const extra = [inputs.audienceScope, inputs.extraScope].filter((s): s is string => !!s);
      const expected = 'exchanged scope = subject token scope';
      if (!inputs.user) return skipped(rule, expected, 'a user');
      const subjectToken = await subject(extra);
      const { accessToken } = await requester.exchange({ subjectToken });
      const before = scopesOf(subjectToken);
      const after = scopesOf(accessToken);
      const ok = before.join(' ') === after.join(' ');
      return {
        rule,
        expected: `${expected} ${show(before)}`,
        observed: show(after),
        ok,
        ...(ok
          ? {}
          : {
              differs: `the provider gives ${inputs.client.id}'s (the requester's) default client scopes, not the subject token's`,
            }),
      };
    },
  },
  {
    rule: 'scope set gives exactly the listed plus default scopes (unlisted optional dropped)',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = 'default scopes + the listed one';
      if (!inputs.user || !inputs.extraScope || !inputs.audienceScope)
        return skipped(rule, expected, 'a user, --extra-scope and --audience-scope');
      const subjectToken = await subject([inputs.audienceScope, inputs.extraScope]);
      const defaults = scopesOf(
        (await requester.exchange({ subjectToken: await subject() })).accessToken,
      );
      const want = [...new Set([...defaults, inputs.extraScope])].sort();
      const { accessToken } = await requester.exchange({
        subjectToken,
        scope: [inputs.extraScope],
      });
      const got = scopesOf(accessToken);
      return {
        rule,
        expected: show(want),
        observed: show(got),
        ok: got.join(' ') === want.join(' '),
      };
    },
  },
  {
    rule: "scope extension is limited to the caller's scopes",
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = `a scope not linked to ${inputs.client.id} is refused (invalid_scope)`;
      if (!inputs.user || !inputs.foreignScope)
        return skipped(rule, expected, 'a user and --foreign-scope');
      const subjectToken = await subject();
      const foreignScope = inputs.foreignScope;
      return expectRefusal(
        rule,
        expected,
        () => requester.exchange({ subjectToken, scope: [foreignScope] }),
        (error) => error instanceof InvalidScopeError,
      );
    },
  },
  {
    rule: 'audience narrows aud to the requested client',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = `aud = {${inputs.audience}}`;
      if (!inputs.user || !inputs.audience || !inputs.audienceScope)
        return skipped(rule, expected, 'a user, --audience and --audience-scope');
      const { accessToken } = await requester.exchange({
        subjectToken: await subject(),
        scope: [inputs.audienceScope],
        audience: [inputs.audience],
      });
      const aud = audOf(accessToken);
      return { rule, expected, observed: `aud = ${show(aud)}`, ok: aud.join() === inputs.audience };
    },
  },
  {
    rule: 'audience only filters: {B, C} where a scope adds only B',
    run: async ({ inputs, requester, subject }, rule) => {
      const B = inputs.audience;
      const C = inputs.unavailableAudience;
      const expected = `aud = {${B}} (${C} dropped, the request accepted)`;
      if (!inputs.user || !B || !C || !inputs.audienceScope)
        return skipped(
          rule,
          expected,
          'a user, --audience, --audience-scope and --unavailable-audience',
        );
      const subjectToken = await subject();
      const audienceScope = inputs.audienceScope;
      try {
        const { accessToken } = await requester.exchange({
          subjectToken,
          scope: [audienceScope],
          audience: [B, C],
        });
        const aud = audOf(accessToken);
        return { rule, expected, observed: `aud = ${show(aud)}`, ok: aud.join() === B };
      } catch (error) {
        // The specification's request is refused as a whole: that is not what it describes,
        // however reasonable the refusal (Keycloak checks every requested audience since
        // PR keycloak#37354 instead of dropping the unavailable ones).
        const refusedForC =
          error instanceof AudienceNotAvailableError && error.audiences.join() === C;
        return {
          rule,
          expected,
          observed: describeRefusal(error),
          ok: false,
          differs: refusedForC
            ? `the provider refuses the whole request because ${C} is not available, instead of narrowing aud to {${B}}: audience never drops a requested client, every one must be produced by a scope`
            : 'the provider refuses the request for another reason than the unavailable audience',
        };
      }
    },
  },
  {
    rule: 'audience never adds an audience no scope produces',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = 'refusal (Requested audience not available)';
      if (!inputs.user || !inputs.audience) return skipped(rule, expected, 'a user and --audience');
      const subjectToken = await subject();
      const audience = inputs.audience;
      return expectRefusal(
        rule,
        expected,
        () => requester.exchange({ subjectToken, audience: [audience] }),
        (error) => error instanceof AudienceNotAvailableError,
      );
    },
  },
  {
    rule: 'a client may only exchange tokens whose audience includes it',
    run: async ({ inputs, subject }, rule) => {
      const expected = '403 access_denied for a subject token without the client in aud';
      if (!inputs.user || !inputs.noRefreshClient)
        return skipped(rule, expected, 'a user and --other-client (not in the user token aud)');
      const subjectToken = await subject();
      const other = inputs.noRefreshClient;
      if (audOf(subjectToken).includes(other.id))
        return skipped(rule, expected, `a user token without ${other.id} in aud`);
      return expectRefusal(
        rule,
        expected,
        () => clientOf(inputs, other).exchange({ subjectToken }),
        (error) => error instanceof ClientNotInAudienceError,
      );
    },
  },
  {
    rule: 'a client without refresh-token-in-exchange cannot request a refresh token',
    run: async ({ inputs, subject }, rule) => {
      const expected = 'refusal (requested_token_type unsupported)';
      const other = inputs.noRefreshClient;
      if (!inputs.user || !other?.subjectScope)
        return skipped(rule, expected, 'a user, --other-client and --other-client-scope');
      const subjectToken = await subject([other.subjectScope]);
      return expectRefusal(
        rule,
        expected,
        () => clientOf(inputs, other).exchange({ subjectToken, requestRefreshToken: true }),
        (error) => error instanceof RequestedTokenTypeUnsupportedError,
      );
    },
  },
  {
    rule: 'no refresh token for a token derived from an offline token',
    run: async ({ inputs, requester }, rule) => {
      const expected = 'refusal (creating a new session is needed)';
      if (!inputs.user)
        return skipped(rule, expected, 'a user whose client may use offline_access');
      const userClient = clientOf(inputs, inputs.user.client);
      const offline = await userClient.requestToken({
        grant_type: 'password',
        username: inputs.user.username,
        password: inputs.user.password,
        scope: 'offline_access',
      });
      if (!offline.refreshToken) return skipped(rule, expected, 'an offline token for the user');
      const derived = await userClient.refresh(offline.refreshToken);
      return expectRefusal(
        rule,
        expected,
        () => requester.exchange({ subjectToken: derived.accessToken, requestRefreshToken: true }),
        (error) => error instanceof RefreshTokenNotAllowedError,
      );
    },
  },
  {
    rule: 'a refresh of an audience-narrowed exchanged token stays narrowed',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = `aud = {${inputs.audience}} after refresh`;
      if (!inputs.user || !inputs.audience || !inputs.audienceScope)
        return skipped(rule, expected, 'a user, --audience and --audience-scope');
      try {
        const exchanged = await requester.exchange({
          subjectToken: await subject(),
          scope: [inputs.audienceScope],
          audience: [inputs.audience],
          requestRefreshToken: true,
        });
        if (!exchanged.refreshToken)
          return { rule, expected, observed: 'no refresh token issued', ok: false };
        // The provider's own refresh grant (TokenClient.refresh narrows again by itself).
        const refreshed = await requester.requestToken({
          grant_type: 'refresh_token',
          refresh_token: exchanged.refreshToken,
        });
        const aud = audOf(refreshed.accessToken);
        const ok = aud.join() === inputs.audience;
        return {
          rule,
          expected,
          observed: `aud = ${show(aud)}`,
          ok,
          ...(ok
            ? {}
            : {
                differs:
                  "the refresh grant ignores the refresh token's req-aud and answers every audience of the scopes; Cairn's helper exchanges the refreshed token again to narrow it",
              }),
        };
      } catch (error) {
        return { rule, expected, observed: describeRefusal(error), ok: undefined };
      }
    },
  },
  {
    rule: 'impersonation (requested_subject) is refused',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = 'refusal';
      if (!inputs.user) return skipped(rule, expected, 'a user');
      const subjectToken = await subject();
      return expectRefusal(
        rule,
        expected,
        () =>
          requester.requestToken({
            grant_type: GRANT_TOKEN_EXCHANGE,
            subject_token: subjectToken,
            subject_token_type: TOKEN_TYPE_ACCESS,
            requested_subject: 'someone-else',
          }),
        (error) => error instanceof UnsupportedExchangeParameterError,
      );
    },
  },
  {
    rule: 'delegation (actor_token) is refused or ignored',
    run: async ({ inputs, requester, subject }, rule) => {
      const expected = 'refusal, or a token for the subject without `act`';
      if (!inputs.user) return skipped(rule, expected, 'a user');
      const subjectToken = await subject();
      try {
        const result = await requester.requestToken({
          grant_type: GRANT_TOKEN_EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: TOKEN_TYPE_ACCESS,
          actor_token: subjectToken,
          actor_token_type: TOKEN_TYPE_ACCESS,
        });
        const ignored =
          claim(result.accessToken, 'sub') === claim(subjectToken, 'sub') &&
          claim(result.accessToken, 'act') === undefined;
        return {
          rule,
          expected,
          observed: ignored ? 'ignored (token for the subject, no act)' : 'delegated (act present)',
          ok: ignored,
        };
      } catch (error) {
        return { rule, expected, observed: describeRefusal(error), ok: true };
      }
    },
  },
];

async function userToken(inputs: ExchangeCheckInputs, scopes: string[] = []): Promise<string> {
  if (!inputs.user) throw new Error('no user configured');
  const tokens = await clientOf(inputs, inputs.user.client).requestToken({
    grant_type: 'password',
    username: inputs.user.username,
    password: inputs.user.password,
    scope: scopes.length ? scopes.join(' ') : undefined,
  });
  return tokens.accessToken;
}

/** Runs every scenario in order; an unexpected failure of one check is reported, not thrown. */
export async function runExchangeChecks(inputs: ExchangeCheckInputs): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    const context: CheckContext = {
      inputs,
      requester: clientOf(inputs, inputs.client),
      subject: (scopes) => userToken(inputs, scopes),
    };
    try {
      results.push(await check.run(context, check.rule));
    } catch (error) {
      results.push({
        rule: check.rule,
        expected: '(the check could not run)',
        observed: describeRefusal(error),
        ok: false,
      });
    }
  }
  return results;
}
