import { defineConfig } from 'vite';

// Vite compiles the TSX itself; the build goes to dist/, which the server hands to the chat handler to serve.
// `npx vite` serves the page with hot reload, /api proxied to the server (npm start, port 3000).
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    rollupOptions: {
      // swr (under @ai-sdk/react) marks its modules 'use client', a React Server Components hint a plain page ignores.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000' } },
});
