/**
 * The HTML interface in a real browser (headless Chromium through playwright-core): the
 * landing page, a text search, a typed and a drawn bbox, paging, a record page with its
 * footprint on the map, JavaScript switched off, a phone-sized screen and Swagger UI; then what
 * a newcomer sees first: the offline world outline under the footprints (or tiles when
 * MAP_TILE_URL is set), a footprint across the antimeridian in one piece, an ISO record's
 * labels not overlapping, dates shown one way, and readable badges on the OpenAPI page. Every
 * request the pages make must go to the test server. Screenshots land in test-results/browser;
 * those of the landing, search, record and OpenAPI pages also in docs/screenshots (the README's).
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get install -y chromium`), or the path in
 * CHROMIUM_PATH; without it the suite fails with the install hint.
 */
import { expect } from 'chai';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import {
  launchLoopbackBrowser,
  type LoopbackBrowser,
  requireChromium,
} from '../support/chromium.js';
import { REPO_ROOT, samplePath } from '../support/fixtures.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { defined } from '../support/defined.js';

const SHOTS = join('test-results', 'browser');
const DOCS_SHOTS = join(REPO_ROOT, 'docs', 'screenshots');
/** An ISO 19115-2 record with long camelCase property names and a date beside a timestamp. */
const ISO_SAMPLE = samplePath('iso19139', 'pacioos-NS06agg.xml');
const ISO_ID = 'NS06agg';
/** A generated record (seed 7) whose box crosses the antimeridian: 171.2°E to 171.0°W. */
const ANTIMERIDIAN_ID = 'cairn-7-0000000';
/** How every date or time is written on the pages: a date, or a date and a UTC time. */
const SHOWN_INSTANT = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})? UTC)?$/;
/** A 1×1 PNG, served as every tile of the MAP_TILE_URL test. */
const TILE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width - 0.5 &&
  b.x < a.x + a.width - 0.5 &&
  a.y < b.y + b.height - 0.5 &&
  b.y < a.y + a.height - 0.5;

/** WCAG relative luminance of an `rgb(…)`/`rgba(…)` colour. */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  // Not an rgb() colour: NaN, which fails the contrast assertion that names the colours.
  if (r === undefined || g === undefined || b === undefined) return NaN;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours (1 to 21). */
function contrast(first: string, second: string): number {
  const one = luminance(first);
  const other = luminance(second);
  const [light, dark] = [Math.max(one, other), Math.min(one, other)];
  return (light + 0.05) / (dark + 0.05);
}

describe('HTML interface in headless Chromium', function () {
  this.timeout(120_000);
  let test: TestApp;
  let server: Server;
  let base: string;
  let browser: LoopbackBrowser | undefined;
  let context: BrowserContext;
  let foreign: string[] = [];

  before(async function () {
    requireChromium();
    mkdirSync(SHOTS, { recursive: true });
    mkdirSync(DOCS_SHOTS, { recursive: true });
    test = await createTestApp(150);
    const iso = await ingestDocuments(test.backend, [
      { name: ISO_SAMPLE, content: readFileSync(ISO_SAMPLE, 'utf8') },
    ]);
    expect(iso.written, 'the ISO sample record is loaded').to.equal(1);
    server = test.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue`;
    browser = await launchLoopbackBrowser('cairn-chromium-', {
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
    expect(west).to.be.lessThan(defined(east, 'the east edge'));
    expect(south).to.be.lessThan(defined(north, 'the north edge'));
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
    const offline = await launchLoopbackBrowser('cairn-nojs-', { javaScriptEnabled: false });
    try {
      const plain = await offline.context.newPage();
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
      `/collections/metadata:main/items/${ISO_ID}?f=html`,
      `/collections/metadata:main/items/${ANTIMERIDIAN_ID}?f=html`,
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
  /** The map's basemap, once drawn: the land paths and the z-index of its pane and the footprints'. */
  const basemapOf = async (page: Page) => {
    await page.waitForSelector('#map.has-basemap');
    return await page.evaluate<{
      land: number;
      landOutsidePane: number;
      paneZ: number;
      overlayZ: number;
      footprintsInOverlay: number;
    }>(`(() => {
      const map = document.getElementById('map');
      const pane = map.querySelector('.leaflet-basemap-pane');
      const overlay = map.querySelector('.leaflet-overlay-pane');
      return {
        land: pane ? pane.querySelectorAll('path.basemap-land').length : 0,
        landOutsidePane: map.querySelectorAll('.leaflet-overlay-pane path.basemap-land').length,
        paneZ: pane ? Number(getComputedStyle(pane).zIndex) : NaN,
        overlayZ: Number(getComputedStyle(overlay).zIndex),
        footprintsInOverlay: overlay.querySelectorAll('path.leaflet-interactive').length,
      };
    })()`);
  };

  /** Every date or time on the page as shown, and whether any raw timestamp text remains. */
  const datesOf = async (page: Page) =>
    await page.evaluate<{ shown: string[]; raw: string[] }>(`(() => ({
      shown: [...document.querySelectorAll('main time')].map((t) => t.textContent.trim()),
      raw: (document.querySelector('main').innerText.match(/\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}[^\\s]*/g) || []),
    }))()`);

  it('draws the offline world outline under the search results, with no tiles', async () => {
    const page = await open('/collections/metadata:main/items?f=html&limit=25');
    const basemap = await basemapOf(page);
    expect(basemap.land, 'world outline paths').to.be.greaterThan(0);
    expect(basemap.landOutsidePane).to.equal(0);
    expect(basemap.footprintsInOverlay).to.be.greaterThan(0);
    expect(basemap.paneZ, 'basemap pane under the footprints').to.be.lessThan(basemap.overlayZ);
    expect(await page.locator('#map .leaflet-tile').count()).to.equal(0);
    // Every footprint of the page (some across the antimeridian) is inside the map's view.
    const map = (await page.locator('#map').boundingBox())!;
    for (const shape of await page.locator('#map path.leaflet-interactive').all()) {
      const box = (await shape.boundingBox())!;
      expect(box.x, 'footprint west of the view').to.be.at.least(map.x - 1);
      expect(box.x + box.width, 'footprint east of the view').to.be.at.most(map.x + map.width + 1);
    }
    const dates = await datesOf(page);
    expect(dates.shown.length).to.be.greaterThan(0);
    for (const shown of dates.shown) expect(shown).to.match(SHOWN_INSTANT);
    expect(dates.raw, 'raw timestamps on the page').to.deep.equal([]);
    await page.screenshot({ path: join(DOCS_SHOTS, 'search.png') });
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('shows an ISO record with readable, non-overlapping labels and one date format', async () => {
    const page = await open(`/collections/metadata:main/items/${ISO_ID}?f=html`);
    const labels = await page.locator('dl.properties dt').allTextContents();
    expect(labels).to.include.members(['Metadata standard name', 'Metadata standard version']);
    expect(
      labels.some((label) => /[a-z][A-Z]/.test(label)),
      labels.join(', '),
    ).to.equal(false);
    expect(await page.getAttribute('dl.properties dt[title=useLimitation]', 'title')).to.equal(
      'useLimitation',
    );
    const cells = await page.evaluate<
      { tag: string; text: string; box: Box; overflow: number }[]
    >(`[...document.querySelectorAll('dl.properties > *')].map(
      (cell) => {
        const box = cell.getBoundingClientRect();
        return {
          tag: cell.tagName,
          text: cell.textContent.trim().slice(0, 40),
          box: { x: box.x, y: box.y, width: box.width, height: box.height },
          overflow: cell.scrollWidth - cell.clientWidth,
        };
      },
    )`);
    expect(cells.length).to.be.greaterThan(20);
    for (const [index, cell] of cells.entries()) {
      expect(cell.overflow, `${cell.tag} "${cell.text}" overflows`).to.be.at.most(0);
      for (const other of cells.slice(index + 1)) {
        expect(overlaps(cell.box, other.box), `"${cell.text}" overlaps "${other.text}"`).to.equal(
          false,
        );
      }
    }
    const dates = await datesOf(page);
    expect(dates.shown).to.include.members(['2010-05-07', '2014-03-17 23:56 UTC', '2014-04-16']);
    for (const shown of dates.shown) expect(shown).to.match(SHOWN_INSTANT);
    expect(dates.raw, 'raw timestamps on the page').to.deep.equal([]);
    const basemap = await basemapOf(page);
    expect(basemap.land).to.be.greaterThan(0);
    expect(basemap.paneZ).to.be.lessThan(basemap.overlayZ);
    await page.screenshot({ path: join(DOCS_SHOTS, 'record.png') });
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('frames a footprint across the antimeridian in one piece, with land on both sides', async () => {
    const page = await open(`/collections/metadata:main/items/${ANTIMERIDIAN_ID}?f=html`);
    const basemap = await basemapOf(page);
    // The outline is drawn twice: the usual world and its copy east of 180°.
    expect(basemap.land, 'world outline copies').to.equal(2);
    expect(basemap.paneZ).to.be.lessThan(basemap.overlayZ);
    const footprint = page.locator('#map path.leaflet-interactive');
    expect(await footprint.count(), 'one footprint shape').to.equal(1);
    const shape = (await footprint.boundingBox())!;
    const map = (await page.locator('#map').boundingBox())!;
    // One piece in the middle of the map, not two slivers at the world's edges.
    expect(shape.width)
      .to.be.greaterThan(map.width / 10)
      .and.lessThan(map.width * 0.8);
    expect(shape.x).to.be.greaterThan(map.x);
    expect(shape.x + shape.width).to.be.lessThan(map.x + map.width);
    const centre = shape.x + shape.width / 2 - (map.x + map.width / 2);
    expect(Math.abs(centre), 'footprint centred').to.be.lessThan(map.width / 4);
    // The record's own geometry is shown as it is (two parts split at 180°).
    expect(await page.locator('details pre').textContent()).to.contain('MultiPolygon');
    await page.screenshot({ path: join(DOCS_SHOTS, 'record-antimeridian.png') });
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('draws a search box across the antimeridian in one piece and finds the record there', async () => {
    const page = await open('/collections/metadata:main/items?f=html&bbox=170,49,-170,54');
    const ids = await page.locator('.result code').allTextContents();
    expect(ids).to.include(ANTIMERIDIAN_ID);
    await basemapOf(page);
    const box = (await page.locator('#map path.search-box').boundingBox())!;
    const map = (await page.locator('#map').boundingBox())!;
    expect(box.width, 'one box, not one spanning the world').to.be.lessThan(map.width / 2);
    expect(box.x).to.be.greaterThan(map.x);
    expect(box.x + box.width).to.be.lessThan(map.x + map.width);
    expect(errorsOf(page)).to.deep.equal([]);
    await page.close();
  });

  it('shows the landing, collection and OpenAPI pages: dates one way, readable badges', async () => {
    const landing = await open('?f=html');
    await landing.screenshot({ path: join(DOCS_SHOTS, 'landing.png') });
    await landing.close();
    const collection = await open('/collections/metadata:main?f=html');
    const extent = await datesOf(collection);
    expect(extent.shown).to.have.length(2);
    for (const shown of extent.shown) expect(shown).to.match(SHOWN_INSTANT);
    expect(extent.raw, 'raw timestamps on the collection page').to.deep.equal([]);
    await collection.close();
    const page = await open('/openapi?f=html');
    await page.waitForSelector('.swagger-ui .info .title small pre');
    const badges = await page.evaluate<
      { text: string; colour: string; background: string }[]
    >(`[...document.querySelectorAll(
      '.swagger-ui .info .title small pre')].map((text) => {
      let element = text;
      let background = 'rgba(0, 0, 0, 0)';
      while (element && /rgba\\(.*, 0\\)|transparent/.test(background)) {
        background = getComputedStyle(element).backgroundColor;
        element = element.parentElement;
      }
      return { text: text.textContent.trim(), colour: getComputedStyle(text).color, background };
    })`);
    expect(badges.map((badge) => badge.text)).to.include.members(['OAS 3.0']);
    for (const badge of badges) {
      expect(
        contrast(badge.colour, badge.background),
        `badge "${badge.text}": ${badge.colour} on ${badge.background}`,
      ).to.be.at.least(4.5);
    }
    await page.screenshot({ path: join(DOCS_SHOTS, 'openapi.png') });
    await page.close();
  });

  it('draws tiles instead of the outline when MAP_TILE_URL is set', async () => {
    const tiled = await createTestApp(3, {
      MAP_TILE_URL: 'http://127.0.0.1:9/tiles/{z}/{x}/{y}.png',
      MAP_TILE_ATTRIBUTION: '<b>Tiles</b> © Example',
    });
    const tiledServer = tiled.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => tiledServer.once('listening', resolve));
    const page = await context.newPage();
    const tiles: string[] = [];
    await page.route('http://127.0.0.1:9/tiles/**', async (route) => {
      tiles.push(route.request().url());
      await route.fulfill({ status: 200, contentType: 'image/png', body: TILE_PNG });
    });
    try {
      const port = (tiledServer.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/catalogue/collections/metadata:main/items?f=html`);
      await page.waitForSelector('#map img.leaflet-tile-loaded');
      expect(tiles.length).to.be.greaterThan(0);
      expect(tiles.every((url) => /\/tiles\/\d+\/\d+\/\d+\.png$/.test(url))).to.equal(true);
      expect(await page.locator('#map path.basemap-land').count()).to.equal(0);
      expect(await page.locator('#map path.leaflet-interactive').count()).to.be.greaterThan(0);
      // The attribution is shown as text, never as markup.
      expect(await page.locator('.leaflet-control-attribution').textContent()).to.contain(
        '<b>Tiles</b> © Example',
      );
      expect(await page.locator('.leaflet-control-attribution b').count()).to.equal(0);
    } finally {
      await page.close();
      await new Promise((resolve) => tiledServer.close(resolve));
      await tiled.close();
    }
  });
});
