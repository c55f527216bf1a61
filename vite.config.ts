import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web console (`console/`), built to `dist/console/` and served by the API under `/console/`.
 * Everything it needs is emitted as files of its own: no inline script or style, no data: URLs
 * for scripts, no module-preload polyfill (the page's CSP allows `'self'` only).
 */
export default defineConfig({
  root: fileURLToPath(new URL('console/', import.meta.url)),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('dist/console/', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
