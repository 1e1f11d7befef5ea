import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// This file runs in Node (Vite's config loader), but lint keeps node:* out of renderer/.
const root = import.meta.dirname;
const repoRoot = `${import.meta.dirname}/..`;

// The built UI only ever talks to the local core (same origin when served headless, or the
// loopback base URL handed over by the Electron preload). Dev builds skip this so Vite's inline
// React-refresh preamble can run.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self' http://127.0.0.1:* http://localhost:*",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

const contentSecurityPolicy = (): Plugin => ({
  name: 'parley-csp',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
      injectTo: 'head-prepend',
    },
  ],
});

export default defineConfig({
  root,
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  server: { fs: { allow: [repoRoot] } },
  build: {
    outDir: '../.build/renderer',
    emptyOutDir: true,
    sourcemap: true,
  },
});
