import preact from '@preact/preset-vite';
import { defineConfig, type UserConfig } from 'vite';

/**
 * The build of a browser app Quotient serves (the admin console, the rep portal): Preact, built into `<root>/dist`
 * for the path it is served at. Every asset is a file of its own, since the pages' CSP allows only 'self' and
 * nothing may be inlined.
 */
export function browserAppConfig(root: string, base: string): UserConfig {
  return defineConfig({
    root,
    base,
    plugins: [preact()],
    logLevel: 'warn',
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      sourcemap: false,
    },
  });
}
