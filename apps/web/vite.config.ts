import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Libraries every screen needs go into long-cached vendor chunks; screens themselves are split
// per route with lazy(), so /login does not download the dashboards, charts or date pickers.
// Mantine is left to Rollup on purpose: one Mantine chunk would make /login download the tables,
// pickers and pagination of the dashboards too.
const vendorChunks: Array<[string, RegExp]> = [
  ['react', /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/],
  ['router', /[\\/]node_modules[\\/](react-router|cookie|set-cookie-parser)[\\/]/],
  ['query', /[\\/]node_modules[\\/]@tanstack[\\/]/],
  ['i18n', /[\\/]node_modules[\\/](i18next|react-i18next|html-parse-stringify|void-elements)[\\/]/],
  ['zod', /[\\/]node_modules[\\/]zod[\\/]/],
  ['forms', /[\\/]node_modules[\\/](react-hook-form|@hookform)[\\/]/],
];

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      output: {
        manualChunks(id) {
          for (const [name, pattern] of vendorChunks) if (pattern.test(id)) return name;
          return undefined;
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
