import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Manifest, type Plugin } from 'vite';

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
function precompress(outDir: string): void {
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
}

// dwv (the DICOM viewer's renderer) starts its decoders (JPEG, JPEG 2000, RLE) as workers at
// assets/workers/ relative to the page (document.baseURI), not to its chunk: the viewer's page is
// /study/:uid, so they are copied to study/assets/workers/ as dwv ships them.
function copyDwvWorkers(outDir: string): void {
  const from = path.join(path.dirname(createRequire(import.meta.url).resolve('dwv')), 'assets', 'workers');
  const to = path.join(outDir, 'study', 'assets', 'workers');
  fs.mkdirSync(to, { recursive: true });
  for (const file of fs.readdirSync(from)) {
    if (file.endsWith('.js')) fs.copyFileSync(path.join(from, file), path.join(to, file));
  }
}

interface DrawingModule {
  drawScreen(pathname: string): Promise<{ markup: string; title: string }>;
  DRAWN_SCREENS: Record<string, { source: string; kind: 'visitor' | 'session' }>;
}

/** The stylesheets of a chunk and of the chunks it imports, as the browser build wrote them. */
function stylesheetsOf(manifest: Manifest, key: string, seen = new Set<string>(), into = new Set<string>()) {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`${key} is not in the build's manifest`);
  if (seen.has(key)) return into;
  seen.add(key);
  for (const css of chunk.css ?? []) into.add(css);
  for (const imported of chunk.imports ?? []) stylesheetsOf(manifest, imported, seen, into);
  return into;
}

// The screens of src/prerender.tsx (the sign-in screen, the dashboards) drawn into an HTML file
// each (the path plus .html: login.html, sent for /login, dashboard/patient/protocols.html...):
// built for Node, run once, the markup put in #root with the screen's stylesheets linked, so the
// page is drawn from its HTML and CSS alone; src/boot.ts then asks for the app, which takes the
// drawn screen over or replaces it (<html data-drawn-for>: visitor or session).
async function drawFirstScreens(root: string, outDir: string): Promise<void> {
  const drawingDir = path.join(root, '.prerender');
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    mode: 'production',
    plugins: [react()],
    build: { ssr: 'src/prerender.tsx', outDir: drawingDir, emptyOutDir: true, copyPublicDir: false },
  });
  try {
    const drawing = (await import(pathToFileURL(path.join(drawingDir, 'prerender.js')).href)) as DrawingModule;
    const manifestFile = path.join(outDir, '.vite', 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
    const template = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
    const boot = manifest['src/boot.ts'];
    if (!boot) throw new Error('src/boot.ts is not in the build');
    // The app's own entry leaves the page (src/boot.ts runs the app once it is painted), and the
    // sign-in screen's preloads too: compiled while the page was parsed, they held its paint back.
    const withPreloads = template.replace(/\s*<script type="module"[^>]*><\/script>/, '');
    const withoutPreloads = withPreloads.replace(/\s*<link rel="modulepreload"[^>]*>/g, '');
    for (const [pathname, screen] of Object.entries(drawing.DRAWN_SCREENS)) {
      // A screen drawn for a session keeps the app's preloads: its list needs the app to arrive, and
      // fetched only after the first paint it came later (docs/decisions.md).
      const page = screen.kind === 'session' ? withPreloads : withoutPreloads;
      const { markup, title } = await drawing.drawScreen(pathname);
      // The stylesheets of the screen's chunks (boot.ts asks for its code once the page is painted).
      const head = [...stylesheetsOf(manifest, screen.source)]
        .filter((file) => !page.includes(`/${file}"`))
        .map((file) => `<link rel="stylesheet" crossorigin href="/${file}">`)
        .concat(
          '<script src="/drawn-state.js"></script>',
          `<script type="module" crossorigin src="/${boot.file}"></script>`,
        )
        .join('\n    ');
      // Replaced through functions: a "$" in the texts is no replacement pattern.
      const html = page
        .replace(
          '<html lang="pt-BR">',
          () => `<html lang="pt-BR" data-mantine-color-scheme="light" data-drawn-for="${screen.kind}">`,
        )
        .replace(/<title>[^<]*<\/title>/, () => `<title>${title}</title>`)
        .replace('</head>', () => `  ${head}\n  </head>`)
        .replace(
          '<div id="root"></div>',
          () =>
            `<div id="root"><div class="drawn-screen" data-year="${new Date().getFullYear()}">${markup}</div></div>`,
        );
      if (!html.includes('class="drawn-screen"')) throw new Error('index.html has no empty #root to draw into');
      const file = path.join(outDir, `${pathname.slice(1)}.html`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, html);
    }
    fs.rmSync(path.dirname(manifestFile), { recursive: true, force: true });
  } finally {
    fs.rmSync(drawingDir, { recursive: true, force: true });
  }
}

// After the browser build, in order: dwv's workers copied, the first screens drawn, every text
// file compressed (the drawn pages too). One plugin, since Rollup runs closeBundle hooks at once.
function afterBuild(): Plugin {
  let root = '.';
  let outDir = 'dist';
  return {
    name: 'portal-after-build',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      copyDwvWorkers(outDir);
      await drawFirstScreens(root, outDir);
      precompress(outDir);
    },
  };
}

export default defineConfig({
  plugins: [react(), afterBuild()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Read by drawFirstScreens, then removed.
    manifest: true,
    rollupOptions: {
      // boot.ts: the entry of the screens drawn at build time (drawFirstScreens).
      input: {
        index: path.resolve(import.meta.dirname, 'index.html'),
        boot: path.resolve(import.meta.dirname, 'src/boot.ts'),
      },
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
