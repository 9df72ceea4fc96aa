import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

// Text files are compressed once here, at their best (brotli 11, gzip 9), and the server sends the
// variant the browser accepts (@fastify/static's preCompressed): nothing is compressed per request.
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/;
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'portal-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const bytes = fs.readFileSync(file);
        if (bytes.length < 512) continue;
        const brotli = zlib.brotliCompressSync(bytes, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        });
        const gzip = zlib.gzipSync(bytes, { level: 9 });
        // A variant no smaller than the file itself would only cost the browser a decode.
        if (brotli.length < bytes.length) fs.writeFileSync(`${file}.br`, brotli);
        if (gzip.length < bytes.length) fs.writeFileSync(`${file}.gz`, gzip);
      }
    },
  };
}

// dwv (the DICOM viewer's renderer) starts its decoders (JPEG, JPEG 2000, RLE) as workers at
// assets/workers/ relative to the page (document.baseURI), not to its chunk: the viewer's page is
// /study/:uid, so they are copied to study/assets/workers/ as dwv ships them.
function dwvWorkers(): Plugin {
  let outDir = 'dist';
  return {
    name: 'portal-dwv-workers',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const from = path.join(path.dirname(createRequire(import.meta.url).resolve('dwv')), 'assets', 'workers');
      const to = path.join(outDir, 'study', 'assets', 'workers');
      fs.mkdirSync(to, { recursive: true });
      for (const file of fs.readdirSync(from)) {
        if (file.endsWith('.js')) fs.copyFileSync(path.join(from, file), path.join(to, file));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), dwvWorkers(), precompress()],
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
