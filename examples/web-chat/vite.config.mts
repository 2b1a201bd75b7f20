import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// `npm run build:web` builds this page into dist/web-chat/ at the repository root, which `agent serve` serves and the
// published package carries. Vite compiles the TSX itself (oxc), so no React plugin is needed for a build; `base: './'`
// lets the page be mounted under any path. `npm run dev:web` serves it with /api proxied to `agent serve` on :3000.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: './',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web-chat', import.meta.url)),
    emptyOutDir: true,
    rollupOptions: {
      // swr (under @ai-sdk/react) marks its modules 'use client', a React Server Components hint a plain page ignores.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: {
      // agent serve answers only to its own names and its own page's origin (docs/web.md, Security): through this
      // proxy the page is served from Vite's port, so the requests are sent as from agent serve's own page.
      '/api': { target: 'http://localhost:3000', changeOrigin: true, headers: { origin: 'http://localhost:3000' } },
    },
  },
});
