import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The app loads Mantine's styles per component (app/mantine.css for the first screen, a file's own
// import for the rest). A component whose styles are nowhere would render unstyled on its screen:
// this walks the sources and checks every Mantine component they use.
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STYLES = path.resolve(SRC, '../../../node_modules/@mantine/core/styles');

/** Components drawn with the styles of others (besides their own file, when there is one). */
const NEEDS: Record<string, string[]> = {
  Select: ['Combobox', 'ScrollArea', 'Input'],
  TagsInput: ['Combobox', 'ScrollArea', 'Pill', 'PillsInput', 'Input'],
  TextInput: ['Input'],
  Textarea: ['Input'],
  InputBase: ['Input'],
  PasswordInput: ['Input'],
  Menu: ['Popover'],
  Tooltip: ['Popover'],
  Modal: ['ModalBase', 'Overlay', 'CloseButton'],
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.includes('.test.') ? [file] : [];
  });
}

const cssImports = (text: string) =>
  new Set([...text.matchAll(/@mantine\/core\/styles\/([A-Za-z-]+)\.css/g)].map((match) => match[1]!));

describe("Mantine's styles per component", () => {
  const firstScreen = cssImports(fs.readFileSync(path.join(SRC, 'app/mantine.css'), 'utf8'));

  it('loads the base styles and no whole stylesheet', () => {
    for (const base of ['baseline', 'default-css-variables', 'global']) expect(firstScreen).toContain(base);
    for (const file of sources(SRC)) {
      expect(fs.readFileSync(file, 'utf8'), path.relative(SRC, file)).not.toMatch(/@mantine\/core\/styles\.css/);
    }
  });

  it('gives every Mantine component the app uses its styles, on the first screen or beside it', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of sources(SRC)) {
      const text = fs.readFileSync(file, 'utf8');
      const own = cssImports(text);
      for (const match of text.matchAll(/import \{([^}]+)\} from '@mantine\/core'/g)) {
        const names = match[1]!
          .split(',')
          .map((name) => name.trim())
          .filter((name) => /^[A-Z]/.test(name));
        for (const name of names) {
          const needed = [...(NEEDS[name] ?? []), name].filter((css) => fs.existsSync(path.join(STYLES, `${css}.css`)));
          checked += needed.length;
          for (const css of needed)
            if (!firstScreen.has(css) && !own.has(css))
              missing.push(`${path.relative(SRC, file)}: ${name} needs ${css}.css`);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});
