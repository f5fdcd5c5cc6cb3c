/** The AUTH_* configuration block: defaults, derived URLs and every validation problem. */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../shared/config/index.js';

function problemsOf(environment: Record<string, string>): string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('config: AUTH_* block', () => {
  it('defaults: no provider, reads public, write role "editor", no exchange client', () => {
    const { auth } = loadConfig({});
    expect(auth).to.deep.equal({
      provider: undefined,
      writeRole: 'editor',
      writeScope: undefined,
      readsRequireToken: false,
      exchange: undefined,
    });
  });

  it('derives Keycloak JWKS and token URLs from the issuer, and freezes the result', () => {
    const config = loadConfig({
      AUTH_ISSUER_URL: 'http://127.0.0.1:8180/realms/cairn-test',
      AUTH_CLIENT_ID: 'cairn-catalogue',
      AUTH_ALGORITHMS: 'RS256, ES256',
      AUTH_CLOCK_TOLERANCE_SECONDS: '5',
      AUTH_EXCHANGE_CLIENT_ID: 'cairn-worker',
      AUTH_EXCHANGE_CLIENT_SECRET: 'secret',
    });
    expect(config.auth.provider).to.deep.equal({
      issuer: 'http://127.0.0.1:8180/realms/cairn-test',
      clientId: 'cairn-catalogue',
      jwksUrl: 'http://127.0.0.1:8180/realms/cairn-test/protocol/openid-connect/certs',
      tokenUrl: 'http://127.0.0.1:8180/realms/cairn-test/protocol/openid-connect/token',
      algorithms: ['RS256', 'ES256'],
      clockToleranceSeconds: 5,
      jwksCacheSeconds: 600,
      jwksRefetchCooldownSeconds: 30,
      jwksFailureCooldownSeconds: 5,
      jwksMaxBytes: 1048576,
    });
    expect(config.auth.exchange).to.deep.equal({
      clientId: 'cairn-worker',
      clientSecret: 'secret',
    });
    expect(Object.isFrozen(config.auth.provider)).to.equal(true);
  });

  it('keeps explicit JWKS and token URLs', () => {
    const { auth } = loadConfig({
      AUTH_ISSUER_URL: 'https://id.example.org/',
      AUTH_CLIENT_ID: 'cairn',
      AUTH_JWKS_URL: 'https://id.example.org/.well-known/jwks.json',
      AUTH_TOKEN_URL: 'https://id.example.org/oauth/token',
    });
    expect(auth.provider?.issuer).to.equal('https://id.example.org/');
    expect(auth.provider?.jwksUrl).to.equal('https://id.example.org/.well-known/jwks.json');
    expect(auth.provider?.tokenUrl).to.equal('https://id.example.org/oauth/token');
  });

  it('refuses none, HS* and unknown algorithms', () => {
    for (const list of ['none', 'HS256', 'RS256,HS512', 'RS999']) {
      const problems = problemsOf({
        AUTH_ISSUER_URL: 'https://id.example.org',
        AUTH_CLIENT_ID: 'c',
        AUTH_ALGORITHMS: list,
      });
      expect(problems.join(' '), list).to.match(/AUTH_ALGORITHMS/);
    }
  });

  it('lists every inconsistency at once', () => {
    const problems = problemsOf({
      AUTH_CLIENT_ID: 'cairn',
      AUTH_JWKS_URL: 'https://id.example.org/jwks',
      AUTH_READS_REQUIRE_TOKEN: 'true',
      AUTH_EXCHANGE_CLIENT_ID: 'worker',
    });
    const text = problems.join('\n');
    expect(text).to.match(/AUTH_ISSUER_URL and AUTH_CLIENT_ID/);
    expect(text).to.match(/AUTH_JWKS_URL/);
    expect(text).to.match(/AUTH_READS_REQUIRE_TOKEN/);
    expect(text).to.match(/AUTH_EXCHANGE_CLIENT_ID and AUTH_EXCHANGE_CLIENT_SECRET/);
    expect(text).to.match(/AUTH_EXCHANGE_CLIENT_ID: needs AUTH_ISSUER_URL/);
    const typed = problemsOf({ AUTH_CLIENT_ID: 'cairn', AUTH_CLOCK_TOLERANCE_SECONDS: '9999' });
    expect(typed.join('\n')).to.match(/AUTH_CLOCK_TOLERANCE_SECONDS/);
    expect(typed.join('\n')).to.match(/AUTH_ISSUER_URL and AUTH_CLIENT_ID/);
  });
});
