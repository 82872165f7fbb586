/**
 * The dashboard: a small React app built into dashboard/dist and served by fastify at `/`
 * (src/http/dashboard.ts). It imports the API's zod schemas and the agent machine straight from
 * src/, so the forms validate exactly as the API does and the chart is drawn from the real machine.
 * `npm run dev:dashboard` serves it with hot reload and proxies /api to a running scheduler.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/api': process.env.OFFICE_API_URL ?? 'http://127.0.0.1:7700' },
  },
});
