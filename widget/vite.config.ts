/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The visitor chat page: dist/chat.html, served by the server at /chat and /chatbot. Its assets go
// under /widget-assets/ so they never collide with the dashboard's /assets/.
const api = process.env.PARLEY_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'widget-assets',
    rollupOptions: { input: 'chat.html' },
  },
  server: { proxy: { '/api': api } },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./vitest.setup.ts'],
    unstubGlobals: true,
  },
});
