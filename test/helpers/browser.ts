import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

// Debian's Chromium driven by playwright-core: nothing is downloaded. `.ci/run` installs the `chromium` package
// when /usr/bin/chromium is missing.

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Builds the console from its sources, so the browser tests never run against a stale build (test/setup/console.ts). */
export function buildConsole(): void {
  const result = spawnSync(
    process.execPath,
    [`${ROOT}node_modules/vite/bin/vite.js`, 'build', '--config', 'console/vite.config.ts'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`the console did not build:\n${result.stdout}\n${result.stderr}`);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/** Messages the page logged as errors, and uncaught exceptions. */
export function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return errors;
}

const AXE_SOURCE = readFileSync(`${ROOT}node_modules/axe-core/axe.min.js`, 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern) and
 * returns the serious and critical violations.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
