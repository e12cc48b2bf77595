/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// The visitor chat page: dist/chat.html, served by the server at /chat and /chatbot. Its assets go
// under /widget-assets/ so they never collide with the dashboard's /assets/.
//
// It loads on customers' sites, so it runs on Preact: the components are written against React's
// API and `react`, `react-dom` and `react/jsx-runtime` resolve to preact/compat (the preset's
// aliases), about a tenth of react-dom's size. Budgets: scripts/size.mjs.
const api = process.env.PARLEY_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [preact()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'widget-assets',
    // The manifest tells scripts/size.mjs which chunks chat.html loads up front.
    manifest: true,
    rollupOptions: { input: 'chat.html' },
  },
  server: { proxy: { '/api': api } },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./vitest.setup.ts'],
    unstubGlobals: true,
    // A test's time limit only catches a hang. Screens driven through userEvent, some waiting
    // on real timers (the invite dialog closes after 1.5 s), took past the 5 s default on the
    // 2-core CI machine while it compiled beside them.
    testTimeout: 20_000,
    // Testing Library's React renderer imports react and react-dom. Its ES module build, run
    // through Vite (inline), gets the same preact/compat aliases, so the tests render with what
    // ships; its default CommonJS build would require() the real React from node_modules.
    alias: [{ find: /^@testing-library\/react$/, replacement: '@testing-library/react/dist/@testing-library/react.esm.js' }],
    server: { deps: { inline: ['@testing-library/react'] } },
  },
});
