import { defineConfig } from 'vite';

// The embed loader: one self-contained IIFE, dist/widget.js, no React. Built after the chat page
// (emptyOutDir false keeps it).
export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2018',
    lib: {
      entry: 'src/loader/widget.ts',
      name: 'ParleyWidget',
      formats: ['iife'],
      fileName: () => 'widget.js',
    },
  },
});
