import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { ROOT } from './build.js';

export const ARTIFACTS = path.join(ROOT, 'e2e/artifacts');
export const WIDTHS = { desktop: 1280, phone: 390 } as const;

/** Chromium's flags for the journeys and the web benchmarks: no sandbox (root), no GPU, nothing in the background. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's chromium (or CHROMIUM_PATH). A missing browser is an error, never a skipped journey:
 * a green run must mean the screens were really exercised.
 */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(
      `Chromium was not found at ${executablePath}. Install it (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({
    baseURL,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    viewport: { width: WIDTHS.desktop, height: 900 },
    reducedMotion: 'reduce',
  });
}

/** Resizes the page and lets its layout settle (media queries re-render some parts). */
async function resizeTo(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

/** Full-page screenshots at 1280 and 390 px wide: e2e/artifacts/<name>-1280.png and -390.png. */
export async function screenshotBothWidths(page: Page, name: string): Promise<string[]> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const original = page.viewportSize() ?? { width: WIDTHS.desktop, height: 900 };
  const files: string[] = [];
  for (const width of [WIDTHS.desktop, WIDTHS.phone]) {
    await resizeTo(page, { width, height: width === WIDTHS.phone ? 844 : 900 });
    const file = path.join(ARTIFACTS, `${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    files.push(file);
  }
  await resizeTo(page, original);
  return files;
}

/**
 * Every tag axe-core knows (WCAG 2.x A, AA and AAA, best practices, experimental rules, EN 301 549,
 * RGAA, Section 508…): asking for all of them turns on the rules axe leaves off by default.
 */
export const AXE_TAGS = [...new Set(axe.getRules().flatMap((rule) => rule.tags))].sort();

/** Runs every rule of axe-core and fails on serious or critical violations, listing them. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (blocking.length > 0) {
    const lines = blocking.map(
      (v) =>
        `- [${v.impact}] ${v.id}: ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `    ${n.target.join(' ')} ${n.failureSummary?.replace(/\n/g, ' ') ?? ''}`)
          .join('\n')}`,
    );
    throw new Error(`axe found ${blocking.length} serious/critical violation(s) on ${label}:\n${lines.join('\n')}`);
  }
}

type Rgba = { r: number; g: number; b: number; a: number };

/** A colour as the browser computes it (`rgb()`, `rgba()` or `color(srgb …)`), channels 0 to 255. */
function rgbaOf(css: string): Rgba {
  const values = (css.match(/[\d.]+/g) ?? []).map(Number);
  const scale = css.startsWith('color(') ? 255 : 1;
  return { r: values[0]! * scale, g: values[1]! * scale, b: values[2]! * scale, a: values[3] ?? 1 };
}

/** WCAG's contrast ratio of two opaque colours. */
function contrastRatio(one: Rgba, other: Rgba): number {
  const luminance = ({ r, g, b }: Rgba) => {
    const [R, G, B] = [r, g, b].map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!;
  };
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

/**
 * WCAG's contrast ratio of an element's text against what is really drawn behind it: its own
 * background and its ancestors', translucent tints (a light badge's, a striped row's) laid over
 * each other down to the first opaque one, or the white page.
 */
export async function drawnContrastOf(locator: Locator): Promise<number> {
  const [text, layers] = await locator.evaluate((element) => {
    const backgrounds: string[] = [];
    for (let node: Element | null = element; node; node = node.parentElement) {
      const background = getComputedStyle(node).backgroundColor;
      backgrounds.push(background);
      if (!/rgba|\//.test(background) || /,\s*1\)$/.test(background)) break;
    }
    return [getComputedStyle(element).color, backgrounds];
  });
  // From the page's white up through each layer to the element's own background.
  const behind = layers.reverse().reduce(
    (below, css) => {
      const top = rgbaOf(css);
      const mix = (a: number, b: number) => a * top.a + b * (1 - top.a);
      return { r: mix(top.r, below.r), g: mix(top.g, below.g), b: mix(top.b, below.b), a: 1 };
    },
    { r: 255, g: 255, b: 255, a: 1 } as Rgba,
  );
  return contrastRatio(rgbaOf(text), behind);
}

/** Phones first: at 360 px wide the screen must not scroll sideways. */
export async function expectFitsNarrowPhone(page: Page, label: string): Promise<void> {
  const original = page.viewportSize() ?? { width: WIDTHS.desktop, height: 900 };
  await resizeTo(page, { width: 360, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await resizeTo(page, original);
  if (overflow > 0) throw new Error(`${label} scrolls sideways by ${overflow}px at 360 px wide`);
}

/**
 * WCAG's contrast ratio between an element's text colour and its own background colour (both as
 * the browser computes them; the background must be opaque, as on a filled button).
 */
export async function contrastOf(locator: Locator): Promise<number> {
  const [text, background] = await locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return [style.color, style.backgroundColor];
  });
  return contrastRatio(rgbaOf(text), rgbaOf(background));
}
