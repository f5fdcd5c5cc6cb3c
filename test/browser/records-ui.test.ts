/**
 * The HTML interface in a real browser (headless Chromium through playwright-core): the
 * landing page, a text search, a typed and a drawn bbox, paging, a record page with its
 * footprint on the map, JavaScript switched off, a phone-sized screen and Swagger UI. Every
 * request the pages make must go to the test server. Screenshots land in test-results/browser.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get install -y chromium`), or the path in
 * CHROMIUM_PATH; without it the suite is skipped with that reason.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join('test-results', 'browser');
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('HTML interface in headless Chromium', function () {
  this.timeout(120_000);
  let test: TestApp;
  let server: Server;
  let base: string;
  let profile: string;
  let context: BrowserContext;
  const foreign: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
    }
    mkdirSync(SHOTS, { recursive: true });
    test = await createTestApp(150);
    server = test.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue`;
    profile = mkdtempSync(join(tmpdir(), 'cairn-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', ...FLAGS],
      viewport: { width: 1280, height: 900 },
    });
    // No request may leave the server: note and refuse anything else.
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
      foreign.push(url.href);
      return route.abort();
    });
  });

  after(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await test?.close();
  });

  afterEach(() => {
    expect(foreign, 'requests outside the server').to.deep.equal([]);
  });

  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${base}${path}`);
    (page as Page & { errors?: string[] }).errors = errors;
    return page;
  };
  const errorsOf = (page: Page) => (page as Page & { errors?: string[] }).errors ?? [];
  const summary = async (page: Page) => (await page.locator('#summary').textContent())?.trim();
  const matched = async (page: Page) =>
    Number(/of (\d+)/.exec((await summary(page)) ?? '')?.[1] ?? 0);

  it('opens the landing page and searches from it', async () => {
    const page = await open('?f=html');
    expect(await page.title()).to.equal(test.config.service.title);
    await page.screenshot({ path: join(SHOTS, 'landing.png'), fullPage: true });
    await page.fill('#q', 'land');
    await Promise.all([page.waitForURL(/\/items\?/), page.click('form[role=search] button')]);
    expect(page.url()).to.contain('q=land');
    expect(await matched(page)).to.be.greaterThan(0);
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('searches by text and shows the results with their footprints on the map', async () => {
    const page = await open('/collections/metadata:main/items?f=html');
    const all = await matched(page);
    const firstTitle = (await page.locator('.result h2 a').first().textContent())!.trim();
    const word = firstTitle
      .split(/\s+/)
      .find((w) => w.length > 5)!
      .replace(/[^\p{L}]/gu, '');
    await page.fill('#q', word);
    await Promise.all([page.waitForURL(/q=/), page.click('#search-form button[type=submit]')]);
    const found = await matched(page);
    expect(found).to.be.greaterThan(0).and.at.most(all);
    const titles = await page.locator('.result h2 a').allTextContents();
    expect(titles.some((title) => title.toLowerCase().includes(word.toLowerCase()))).to.equal(true);
    expect(await page.locator('#map path.leaflet-interactive').count()).to.be.greaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'search-text.png'), fullPage: true });
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('types a bbox, keeps it in the form and draws it on the map', async () => {
    const page = await open('/collections/metadata:main/items?f=html');
    const all = await matched(page);
    await page.fill('#bbox', '-10,35,30,60');
    await Promise.all([page.waitForURL(/bbox=/), page.click('#search-form button[type=submit]')]);
    expect(decodeURIComponent(page.url())).to.contain('bbox=-10,35,30,60');
    // Empty fields were dropped on the way (303 to a clean URL).
    expect(page.url()).to.not.match(/datetime=(&|$)/);
    expect(await page.inputValue('#bbox')).to.equal('-10,35,30,60');
    const inBox = await matched(page);
    expect(inBox).to.be.greaterThan(0).and.lessThan(all);
    expect(await page.locator('#map path.leaflet-interactive').count()).to.be.greaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'search-bbox.png'), fullPage: true });
    await page.close();
  });

  it('draws a bbox on the map with two clicks', async () => {
    const page = await open('/collections/metadata:main/items?f=html');
    await page.click('#draw-bbox');
    expect(await page.getAttribute('#draw-bbox', 'aria-pressed')).to.equal('true');
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.4, box.y + box.height * 0.3);
    await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.45);
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.5);
    const value = await page.inputValue('#bbox');
    const [west, south, east, north] = value.split(',').map(Number);
    expect(value.split(',')).to.have.length(4);
    expect(west).to.be.lessThan(east);
    expect(south).to.be.lessThan(north);
    await Promise.all([page.waitForURL(/bbox=/), page.click('#search-form button[type=submit]')]);
    expect(await page.inputValue('#bbox')).to.equal(value);
    await page.close();
  });

  it('pages forwards and back', async () => {
    const page = await open('/collections/metadata:main/items?f=html&limit=10&sortby=title');
    expect(await summary(page)).to.match(/^Records 1–10 of \d+$/);
    const first = await page.locator('.result h2 a').first().textContent();
    await Promise.all([page.waitForURL(/offset=10/), page.click('a[rel=next]')]);
    expect(await summary(page)).to.match(/^Records 11–20 of \d+$/);
    expect(await page.inputValue('#sortby')).to.equal('title');
    await page.screenshot({ path: join(SHOTS, 'search-page-2.png'), fullPage: true });
    await Promise.all([page.waitForURL(/offset=0/), page.click('a[rel=prev]')]);
    expect(await page.locator('.result h2 a').first().textContent()).to.equal(first);
    await page.close();
  });

  it('opens a record with its properties, links and footprint on the map', async () => {
    const page = await open('/collections/metadata:main/items?f=html&bbox=-10,35,30,60');
    const link = page.locator('.result h2 a').first();
    const title = (await link.textContent())!.trim();
    await Promise.all([page.waitForURL(/\/items\/[^?]+\?f=html/), link.click()]);
    expect((await page.locator('h1').textContent())!.trim()).to.equal(title);
    expect(await page.locator('dl.properties dt').count()).to.be.greaterThan(3);
    expect(await page.locator('table.links tbody tr').count()).to.be.greaterThan(2);
    // The footprint is the map's one interactive shape (the graticule is not interactive).
    await page.waitForSelector('#map path.leaflet-interactive');
    expect(await page.locator('#map path.leaflet-interactive').count()).to.equal(1);
    expect(await page.locator('#map .leaflet-tile').count()).to.equal(0);
    await page.screenshot({ path: join(SHOTS, 'record.png'), fullPage: true });
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('works with JavaScript switched off (search, paging, record), without the map', async () => {
    const offline = await chromium.launchPersistentContext(
      mkdtempSync(join(tmpdir(), 'cairn-nojs-')),
      {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', ...FLAGS],
        javaScriptEnabled: false,
      },
    );
    try {
      const plain = await offline.newPage();
      await plain.goto(`${base}/collections/metadata:main/items?f=html`);
      expect(await plain.locator('#map').isVisible()).to.equal(false);
      await plain.fill('#q', 'land');
      await plain.fill('#datetime', '2000-01-01/..');
      await Promise.all([
        plain.waitForURL(/q=land/),
        plain.click('#search-form button[type=submit]'),
      ]);
      expect(plain.url()).to.not.match(/bbox=(&|$)/);
      expect(await plain.locator('.result').count()).to.be.greaterThan(0);
      const link = plain.locator('.result h2 a').first();
      await Promise.all([plain.waitForURL(/\/items\/[^?]+\?f=html/), link.click()]);
      expect(await plain.locator('dl.properties').count()).to.equal(1);
      await plain.screenshot({ path: join(SHOTS, 'record-no-javascript.png'), fullPage: true });
    } finally {
      await offline.close();
    }
  });

  it('is readable on a phone: no horizontal scrolling', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 375, height: 740 });
    for (const path of [
      '?f=html',
      '/collections/metadata:main/items?f=html',
      '/collections/metadata:main?f=html',
    ]) {
      await page.goto(`${base}${path}`);
      // A string expression: the browser's DOM types are not in this project's TypeScript lib.
      const overflow = Number(
        await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        ),
      );
      expect(overflow, path).to.be.at.most(0);
    }
    await page.goto(`${base}/collections/metadata:main/items?f=html`);
    await page.screenshot({ path: join(SHOTS, 'search-phone.png'), fullPage: true });
    await page.close();
  });

  it('shows the API documentation through Swagger UI, offline', async () => {
    const page = await open('/openapi?f=html');
    await page.waitForSelector('.swagger-ui .opblock', { timeout: 60_000 });
    expect(await page.locator('.swagger-ui .opblock').count()).to.be.greaterThan(10);
    await page.screenshot({ path: join(SHOTS, 'openapi.png') });
    await page.close();
  });
});
