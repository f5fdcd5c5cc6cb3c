/**
 * The admin pages' sign-in in a real browser (headless Chromium through playwright-core) against
 * the real Keycloak: opening the jobs page leads to Keycloak's login form; after alice signs in
 * the browser is back on the jobs page with the job an HTTP write logged; the job page opens;
 * sign-out ends the session at Keycloak too, so the next visit asks for the password again.
 * Every request must go to the test server or Keycloak (both on 127.0.0.1). Screenshots land in
 * test-results/browser.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH) and Keycloak; without either the suite
 * fails saying so.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import request from 'supertest';
import { generateRecords } from '../../scripts/corpus/generator.js';
import { syncSignInClients } from '../support/admin-sign-in.js';
import {
  launchLoopbackBrowser,
  type LoopbackBrowser,
  requireChromium,
} from '../support/chromium.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  CLIENT,
  ISSUER,
  requireKeycloak,
  userTokens,
} from '../integration/keycloak/keycloak-support.js';
import { defined } from '../support/defined.js';

const SHOTS = join('test-results', 'browser');

describe('Admin pages: sign-in in headless Chromium (real Keycloak)', function () {
  this.timeout(120_000);
  let test: TestApp;
  let server: Server;
  let base: string;
  let browser: LoopbackBrowser | undefined;
  let context: BrowserContext;
  let jobId: string;
  let foreign: string[] = [];

  before(async () => {
    requireChromium();
    await requireKeycloak();
    await syncSignInClients();
    mkdirSync(SHOTS, { recursive: true });
    const directory = mkdtempSync(join(tmpdir(), 'cairn-admin-ui-'));
    // No redirect base: the app redirects to its own address, a loopback port cairn-web allows.
    test = await createTestApp(2, {
      AUTH_ISSUER_URL: ISSUER,
      AUTH_CLIENT_ID: CLIENT.catalogue,
      AUTH_WEB_CLIENT_ID: CLIENT.web,
      WORKER_INGEST_LOG_PATH: join(directory, 'ingest-log.sqlite'),
    });
    // A real job in the ingest log: an HTTP write applied at once (queue "http").
    const bearer = `Bearer ${(await userTokens('alice')).accessToken}`;
    const created = await request(test.app)
      .post('/catalogue/collections/metadata:main/items')
      .set('Authorization', bearer)
      .send([...generateRecords(1, 99, 70000)][0]);
    expect(created.status, created.text).to.equal(201);
    const log = await request(test.app).get('/catalogue/admin/jobs').set('Authorization', bearer);
    jobId = defined((log.body as { jobs: { jobId: string }[] }).jobs[0], 'the newest job').jobId;
    server = test.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchLoopbackBrowser('cairn-chromium-admin-', {
      viewport: { width: 1280, height: 900 },
    });
    context = browser.context;
    foreign = browser.foreign;
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await test?.close();
  });

  afterEach(() => {
    expect(foreign, 'requests outside the loopback servers').to.deep.equal([]);
  });

  it('signs alice in at Keycloak, shows the ingest log and signs her out everywhere', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${base}/catalogue/admin/jobs`);
    await page.waitForSelector('#kc-form-login');
    expect(page.url().startsWith(`${ISSUER}/protocol/openid-connect/auth?`)).to.equal(true);
    await page.fill('#username', 'alice');
    await page.fill('#password', 'alice-password');
    await Promise.all([page.waitForURL(`${base}/catalogue/admin/jobs`), page.click('#kc-login')]);

    expect(await page.title()).to.match(/^Ingest jobs – /);
    expect((await page.locator('#operator').textContent())?.trim()).to.equal('alice');
    const rows = page.locator('#jobs tbody tr');
    expect(await rows.count()).to.equal(1);
    expect(await rows.first().getAttribute('data-job-id')).to.equal(jobId);
    expect(await rows.first().locator('td').nth(1).textContent()).to.equal('http');
    await page.screenshot({ path: join(SHOTS, 'admin-jobs.png'), fullPage: true });

    await Promise.all([
      page.waitForURL(/\/catalogue\/admin\/jobs\/[^/]+\?f=html$/),
      rows.first().locator('a').click(),
    ]);
    expect(await page.locator('h1').textContent()).to.contain(jobId);
    await page.screenshot({ path: join(SHOTS, 'admin-job.png'), fullPage: true });

    await Promise.all([
      page.waitForURL(`${base}/catalogue/admin/signed-out`),
      page.click('#sign-out'),
    ]);
    expect((await page.locator('#message').textContent())?.trim()).to.match(/^You are signed out/);

    // Both sessions are gone: the jobs page leads to Keycloak's login form again.
    await page.goto(`${base}/catalogue/admin/jobs`);
    await page.waitForSelector('#kc-form-login');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});
