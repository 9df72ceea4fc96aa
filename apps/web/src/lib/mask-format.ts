/** A mask pattern: '0' stands for a digit, anything else is typed for the person. */
export type MaskDefinition = string | ReadonlyArray<{ mask: string }>;

const slots = (pattern: string) => [...pattern].filter((c) => c === '0').length;

/** The pattern a number of digits fits: the first with room for them all, else the largest. */
function patternFor(mask: MaskDefinition, digitCount: number): string {
  if (typeof mask === 'string') return mask;
  const fitting = mask.find((m) => slots(m.mask) >= digitCount);
  return (fitting ?? mask[mask.length - 1]!).mask;
}

/**
 * Digits laid into the mask. A literal is written only once a digit follows it, so erasing the
 * last digit never leaves a dangling separator the person has to erase too.
 */
export function applyMask(mask: MaskDefinition, digits: string): string {
  const pattern = patternFor(mask, digits.length);
  let out = '';
  let pending = '';
  let next = 0;
  for (const c of pattern) {
    if (next >= digits.length) break;
    if (c === '0') {
      out += pending + digits[next++];
      pending = '';
    } else pending += c;
  }
  return out;
}

export function maxDigits(mask: MaskDefinition): number {
  return typeof mask === 'string' ? slots(mask) : Math.max(...mask.map((m) => slots(m.mask)));
}

/** The caret position just after the n-th digit of a masked value (0: before the first). */
export function caretAfterDigits(masked: string, n: number): number {
  if (n <= 0) return masked.search(/\d/) === -1 ? masked.length : Math.min(masked.search(/\d/), masked.length);
  let seen = 0;
  for (let i = 0; i < masked.length; i++) {
    if (/\d/.test(masked[i]!) && ++seen === n) return i + 1;
  }
  return masked.length;
}

/**
 * A Brazilian phone number as people write it: "(11) 98888-1111", "(11) 3333-4444",
 * "0800 123 4567"; a number with the country code 55 loses it. Anything else stays as given.
 */
export function formatPhone(phone: string): string {
  if (/^\s*\+(?!\s*55)/.test(phone)) return phone.trim();
  let digits = phone.replace(/\D/g, '');
  if ((digits.length === 12 || digits.length === 13) && digits.startsWith('55')) digits = digits.slice(2);
  if (/^0[3589]00\d{7}$/.test(digits)) return applyMask('0000 000 0000', digits);
  if (digits.length === 11) return applyMask('(00) 00000-0000', digits);
  if (digits.length === 10) return applyMask('(00) 0000-0000', digits);
  return phone.trim();
}
