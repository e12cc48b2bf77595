/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// In development the Rust server (`parley serve`, default 127.0.0.1:8080) answers /api and the
// OAuth redirects; the built app is served by that same server, so the API is always same-origin.
const api = process.env.PARLEY_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: {
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
    rollupOptions: {
      output: {
        // Libraries change less often than the app: their own chunks stay cached across releases.
        manualChunks: {
          react: ['react', 'react-dom', 'react-router'],
          mantine: ['@mantine/core', '@mantine/hooks', '@mantine/notifications'],
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
  },
});
