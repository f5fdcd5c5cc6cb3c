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

/** Rules where Keycloak 26.5.6 differs from the specification; every other rule holds. */
const NOT_HOLDING = [
  'scope unset keeps the original scopes',
  'audience only filters: {B, C} where a scope adds only B',
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

  it('reports the rules Keycloak 26.5.6 does not follow, and only those, each saying why', () => {
    const failing = results.filter((result) => result.ok === false);
    expect(failing.map((result) => result.rule)).to.deep.equal(NOT_HOLDING);
    for (const result of failing) expect(result.differs, result.rule).to.be.a('string');
  });

  it('audience {B, C}: Keycloak refuses the request the specification describes, so the rule differs', () => {
    const row = results.find((result) => result.rule.startsWith('audience only filters'));
    expect(row?.expected).to.equal(
      `aud = {${CLIENT.downstream}} (${CLIENT.reports} dropped, the request accepted)`,
    );
    expect(row?.observed).to.equal(
      `HTTP 400 invalid_request: Requested audience not available: ${CLIENT.reports}`,
    );
    expect(row?.ok).to.equal(false);
    expect(row?.differs).to.match(/refuses the whole request because cairn-reports/);
  });

  it('the command prints the table and the differences, and with --strict exits 1 because three rules do not hold', async function () {
    this.timeout(180_000);
    try {
      await command('--preset', 'cairn-test', '--issuer', ISSUER, '--strict');
      expect.fail('exit 0 with --strict');
    } catch (error) {
      const failure = error as { code?: number; stdout?: string };
      expect(failure.code, String(error)).to.equal(1);
      expect(failure.stdout).to.match(/rule\s+\| expected\s+\| observed\s+\| ok/);
      expect(failure.stdout).to.contain('12 hold, 3 do not hold, 0 skipped');
      expect(failure.stdout).to.match(/\| differs/);
      expect(failure.stdout).to.contain(
        'Where the provider differs from the specification, and why:',
      );
      expect(failure.stdout).to.match(
        /- audience only filters: \{B, C\} where a scope adds only B: the provider refuses the whole request/,
      );
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
