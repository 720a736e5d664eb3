import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The admin console: built into console/dist and served by `quotient serve` at /admin (src/http/admin/console.ts).
// Every asset is local; the page's CSP allows only 'self', so nothing may be inlined.
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
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
