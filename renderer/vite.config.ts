// Builds the console web app into renderer/dist, which the agent's console listener serves.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  // Preact's automatic JSX runtime, through Vite's built-in transformer (no Babel preset needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // The console is served from loopback; one small bundle is simplest to reason about.
    assetsInlineLimit: 0,
  },
});
