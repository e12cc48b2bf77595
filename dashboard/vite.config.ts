/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// In development the Rust server (`parley serve`, default 127.0.0.1:8080) answers /api and the
// OAuth redirects; the built app is served by that same server, so the API is always same-origin.
const api = process.env.PARLEY_API ?? 'http://127.0.0.1:8080';

// React (with React DOM and the router) changes less often than the app: its own chunk stays
// cached across releases.
const REACT = /\/node_modules\/(react|react-dom|react-router|scheduler|cookie|set-cookie-parser)\//;
// The Mantine components both first screens (/login, /dashboard) and nearly every other screen
// draw: buttons, text and layout, the text input. Split by use they were some twenty chunks of a
// few hundred bytes, each gzipped on its own; as one chunk, loaded with the entry, they are 4 kB
// less on each first screen.
const MANTINE_BASE =
  /\/node_modules\/@mantine\/(core\/esm\/components\/(Button|UnstyledButton|Transition|Paper|Stack|Group|Text|Title|Anchor|Input|InputBase|TextInput|CloseButton|ActionIcon)\/|hooks\/esm\/(use-id|use-uncontrolled)\/)/;

export default defineConfig({
  plugins: [react()],
  // `@parley/shared`: the widget's shared chat look, so the test preview draws as the live chat does.
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      '@parley/shared': fileURLToPath(new URL('../widget/src/shared', import.meta.url)),
    },
  },
  server: {
    fs: { allow: ['.', '../widget/src/shared'] },
    proxy: {
      '/api': api,
      '/socket.io': { target: api, ws: true },
      // The widget app's pages, served by the server (see widget/README.md).
      '/widget.js': api,
      '/widget-assets': api,
      '/chat': api, // also /chatbot
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The manifest tells scripts/size.mjs which chunks each screen loads (budgets there).
    manifest: true,
    rollupOptions: {
      output: {
        // The rest of Mantine has no chunk of its own: one chunk of every component any screen
        // uses would load before the first screen; split by use, each screen's chunks carry only
        // the components it draws.
        manualChunks(id) {
          if (REACT.test(id)) return 'react';
          if (MANTINE_BASE.test(id)) return 'mantine-base';
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./vitest.setup.ts'],
    css: false,
    unstubGlobals: true,
    // A test's time limit only catches a hang. Screens driven through userEvent, some waiting
    // on real timers (the invite dialog closes after 1.5 s), took past the 5 s default on the
    // 2-core CI machine while it compiled beside them.
    testTimeout: 20_000,
  },
});
