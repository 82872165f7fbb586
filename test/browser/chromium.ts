/**
 * What the browser tests share: Debian's chromium driven by playwright-core, and a record of what
 * a page says is wrong (console errors, uncaught exceptions) so a test can require it to be silent.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Skipped on a machine without chromium, except in CI, where .ci/run installs it and a skip would hide a gap. */
export const NO_BROWSER = !existsSync(CHROMIUM) && !process.env.CI;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/** Every console error and uncaught exception of `page`, with the URL it happened on. */
export function recordPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught: ${error.message}`));
  return errors;
}
