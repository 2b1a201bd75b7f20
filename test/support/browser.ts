import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium; .ci/run installs it when it is missing. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const screenshotDirectory = path.join(__dirname, '..', '..', '.test-tmp', 'screenshots');

// Headless, and nothing that reaches for the network or a GPU this machine lacks.
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  page: Page;
  /** Saves a full-page screenshot under .test-tmp/screenshots/ and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Headless chromium with a fresh profile, driven by playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`no chromium at ${chromiumPath}: apt-get install chromium (.ci/run does it)`);
  const profile = await mkdtemp(path.join(os.tmpdir(), 'chromium-profile-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: chromiumFlags,
      // Tall: the UI scrolls inside its own panes, so a full-page screenshot is only as tall as the window.
      viewport: { width: 1440, height: 2000 },
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  await mkdir(screenshotDirectory, { recursive: true });
  return {
    page,
    async screenshot(name) {
      const file = path.join(screenshotDirectory, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
