/**
 * A readable file name part: letters of any language kept as they are ("João", "São Paulo",
 * NFC), only what file systems refuse (slashes, `:*?"<>|`, control characters) replaced, no
 * leading dot, at most 120 characters.
 */
export function fileNamePart(value: string, fallback: string): string {
  const cleaned = value
    .normalize('NFC')
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/[/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 120)
    .trim();
  return cleaned || fallback;
}

/** RFC 8187's `value-chars`: UTF-8, percent-encoded except its `attr-char`s. */
function extValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `Content-Disposition: attachment` naming a file as written (RFC 6266): a plain ASCII
 * `filename` for clients that read no other ("Joao - Sao Paulo.pdf", accents taken off, any
 * other character `_`), and when the name is not plain ASCII, the exact name in `filename*`
 * (UTF-8), which every current browser prefers.
 */
export function attachment(name: string): string {
  const exact = name.normalize('NFC').replace(/\p{Cc}+/gu, ' ');
  const ascii = exact
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\]/g, '_');
  return ascii === exact
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${extValue(exact)}`;
}
