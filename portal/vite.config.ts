import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The rep portal: built into portal/dist and served by `quotient serve` at /portal (src/http/portal/app.ts), with the
// console's toolchain, stylesheet and shared components (ui/). Every asset is local; the page's CSP allows only
// 'self', so nothing may be inlined.
export default defineConfig({
  root: import.meta.dirname,
  base: '/portal/',
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
