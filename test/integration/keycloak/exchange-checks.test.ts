/**
 * The operator command's scenarios against the real Keycloak: the table Keycloak 26.5.6 produces
 * for the test realm (which rules hold, which do not), and the command line end to end.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runExchangeChecks, type CheckResult } from '../../../shared/auth/exchange-checks.js';
import { CLIENT, ISSUER, requireKeycloak, TOKEN_ENDPOINT } from './keycloak-support.js';

const run = promisify(execFile);

/** Runs the operator command in a child process (node + tsx, no npx). */
function command(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'scripts/token-exchange-check.ts', ...args]);
}

/** Rules that do NOT hold on Keycloak 26.5.6; every other rule holds. */
const NOT_HOLDING = [
  'scope unset keeps the original scopes',
  'a refresh of an audience-narrowed exchanged token stays narrowed',
];

describe('token exchange checks (operator command) against the real Keycloak', function () {
  this.timeout(60_000);
  let results: CheckResult[];

  before(async () => {
    await requireKeycloak();
    results = await runExchangeChecks({
      tokenEndpoint: TOKEN_ENDPOINT,
      client: { id: CLIENT.worker, secret: 'cairn-worker-test-secret' },
      user: { client: { id: CLIENT.web }, username: 'alice', password: 'alice-password' },
      audience: CLIENT.downstream,
      audienceScope: 'downstream-audience',
      extraScope: 'ingest',
      foreignScope: 'reports',
      unavailableAudience: CLIENT.reports,
      noExchangeClient: { id: CLIENT.reports, secret: 'cairn-reports-test-secret' },
      noRefreshClient: {
        id: CLIENT.exporter,
        secret: 'cairn-exporter-test-secret',
        subjectScope: 'exporter-audience',
      },
    });
  });

  it('runs every scenario (none skipped) and no result contains a token', () => {
    expect(results).to.have.length(15);
    expect(results.filter((result) => result.ok === undefined)).to.deep.equal([]);
    expect(JSON.stringify(results)).not.to.match(/eyJ[A-Za-z0-9_-]{10,}/);
  });

  it('reports the rules Keycloak 26.5.6 does not follow, and only those', () => {
    const failing = results.filter((result) => result.ok === false).map((result) => result.rule);
    expect(failing).to.deep.equal(NOT_HOLDING);
  });

  it('records the refusal Keycloak gives for audience {B, C}', () => {
    const row = results.find((result) => result.rule.startsWith('audience only filters'));
    expect(row?.observed).to.equal(
      `HTTP 400 invalid_request: Requested audience not available: ${CLIENT.reports}`,
    );
    expect(row?.ok).to.equal(true);
  });

  it('the command prints the table and, with --strict, exits 1 because two rules do not hold', async function () {
    this.timeout(180_000);
    try {
      await command('--preset', 'cairn-test', '--issuer', ISSUER, '--strict');
      expect.fail('exit 0 with --strict');
    } catch (error) {
      const failure = error as { code?: number; stdout?: string };
      expect(failure.code, String(error)).to.equal(1);
      expect(failure.stdout).to.match(/rule\s+\| expected\s+\| observed\s+\| ok/);
      expect(failure.stdout).to.contain('13 hold, 2 do not hold, 0 skipped');
      expect(failure.stdout).not.to.match(/eyJ[A-Za-z0-9_-]{10,}/);
    }
  });

  it('the command exits 2 with a message when the provider is unreachable', async function () {
    this.timeout(120_000);
    try {
      await command('--issuer', 'http://127.0.0.1:1/realms/none', '--client', 'x', '--secret', 'y');
      expect.fail('exit 0');
    } catch (error) {
      const failure = error as { code?: number; stderr?: string };
      expect(failure.code).to.equal(2);
      expect(failure.stderr).to.contain('cannot be reached');
    }
  });
});
