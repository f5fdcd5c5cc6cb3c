/**
 * The schema.org JSON-LD of record pages in a real browser (headless Chromium through
 * playwright-core): a record whose title and description try to end the script element and run
 * their own script runs nothing, its page holds one JSON-LD element, and that element's JSON
 * parses back to the exact title and description. Every request the pages make must go to the
 * test server.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get install -y chromium`), or the path in
 * CHROMIUM_PATH.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { ingestDocuments } from '../../shared/ingest/pipeline.js';
import {
  launchLoopbackBrowser,
  type LoopbackBrowser,
  requireChromium,
} from '../support/chromium.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Titles and descriptions that try every way out of a script element. */
const HOSTILE = [
  {
    id: 'hostile-script',
    title: '</script><script>window.pwned=1</script>',
    description: 'Ends the element </script><script>window.pwned=2</script> in its description.',
  },
  {
    id: 'hostile-comment',
    title: '<!--<script>window.pwned=3</script>--> \u2028 & <b>bold</b>',
    description: '</SCRIPT ><img src=x onerror="window.pwned=4"> and a line separator \u2029 here.',
  },
];

function hostileRecord(entry: (typeof HOSTILE)[number]) {
  return {
    id: entry.id,
    type: 'Feature',
    conformsTo: ['http://www.opengis.net/spec/ogcapi-records-1/1.0/req/record-core'],
    geometry: null,
    properties: { type: 'dataset', title: entry.title, description: entry.description },
    links: [],
  };
}

describe('schema.org JSON-LD in headless Chromium', function () {
  this.timeout(120_000);
  let test: TestApp;
  let server: Server;
  let base: string;
  let browser: LoopbackBrowser | undefined;
  let context: BrowserContext;
  let foreign: string[] = [];

  before(async function () {
    requireChromium();
    test = await createTestApp(5);
    const summary = await ingestDocuments(
      test.backend,
      HOSTILE.map((entry) => ({ name: entry.id, content: JSON.stringify(hostileRecord(entry)) })),
    );
    expect(summary.rejected).to.deep.equal([]);
    server = test.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue`;
    browser = await launchLoopbackBrowser('cairn-chromium-');
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

  /** The page's JSON-LD elements, parsed, and whether any injected script ran. */
  async function readPage(page: Page): Promise<{ items: unknown[]; pwned: unknown }> {
    // A string, as the other browser suites evaluate: the test code is typed without the DOM.
    return page.evaluate<{ items: unknown[]; pwned: unknown }>(`(() => ({
      items: [...document.querySelectorAll('script[type="application/ld+json"]')].map(
        (element) => JSON.parse(element.textContent || 'null'),
      ),
      pwned: window.pwned,
    }))()`);
  }

  for (const entry of HOSTILE) {
    it(`runs no script from the title of ${entry.id} and reads its JSON-LD back exactly`, async () => {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${base}/collections/metadata:main/items/${entry.id}?f=html`);
      await page.waitForLoadState('load');
      const { items, pwned } = await readPage(page);
      expect(pwned, 'an injected script ran').to.equal(undefined);
      expect(dialogs).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
      expect(items).to.have.length(1);
      const item = items[0] as { '@type': string; name: string; description: string };
      expect(item['@type']).to.equal('Dataset');
      expect(item.name).to.equal(entry.title);
      // The description's runs of white space (the line separators too) are one space.
      expect(item.description).to.equal(entry.description.replace(/\s+/g, ' '));
      expect(await page.locator('h1').textContent()).to.equal(entry.title);
      await page.close();
    });
  }

  it('gives the landing page the catalogue as a DataCatalog', async () => {
    const page = await context.newPage();
    await page.goto(`${base}?f=html`);
    const { items } = await readPage(page);
    expect(items).to.have.length(1);
    expect(items[0]).to.include({ '@type': 'DataCatalog', '@id': base });
    await page.close();
  });
});
