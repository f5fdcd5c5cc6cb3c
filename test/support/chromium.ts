/**
 * Headless Chromium for the browser suites: Debian's Chromium (or CHROMIUM_PATH) driven by
 * playwright-core, in a throw-away profile, with every request that leaves loopback refused and
 * noted so a suite can assert that a page fetched nothing from elsewhere.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for a quiet, sandbox-free headless run that contacts no update or sync service. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LoopbackBrowser {
  readonly context: BrowserContext;
  /** Addresses of refused requests that would have left loopback, in the order made. */
  readonly foreign: string[];
  close(): Promise<void>;
}

export interface LoopbackBrowserOptions {
  readonly viewport?: { width: number; height: number };
  readonly javaScriptEnabled?: boolean;
}

/** Fails with the install hint when Chromium is missing: a browser suite never skips silently. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium, or CHROMIUM_PATH)`);
  }
}

/** Starts Chromium in a fresh profile whose requests may reach only 127.0.0.1 and data: URLs. */
export async function launchLoopbackBrowser(
  profilePrefix: string,
  options: LoopbackBrowserOptions = {},
): Promise<LoopbackBrowser> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), profilePrefix));
  const foreign: string[] = [];
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      ...(options.viewport ? { viewport: options.viewport } : {}),
      ...(options.javaScriptEnabled === false ? { javaScriptEnabled: false } : {}),
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
  return {
    context,
    foreign,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
