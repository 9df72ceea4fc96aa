import { InputBase, type InputBaseProps } from '@mantine/core';
import { useMergedRef } from '@mantine/hooks';
import { type ChangeEvent, type Ref, useLayoutEffect, useRef } from 'react';
import { applyMask, caretAfterDigits, type MaskDefinition, maxDigits } from '../lib/mask-format';

export interface MaskedInputProps extends Omit<InputBaseProps, 'onChange'> {
  mask: MaskDefinition;
  value: string;
  onChange: (value: string) => void;
  onBlur?: () => void;
  name?: string;
  id?: string;
  placeholder?: string;
  inputMode?: 'numeric' | 'text' | 'tel';
  autoComplete?: string;
  inputRef?: Ref<HTMLInputElement>;
  'data-testid'?: string;
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/**
 * A Mantine input that types its mask as the person types; the value keeps the mask. The masks
 * are digits only, so a few lines do what a masking library would add about 18 kB gzipped for,
 * on /login among others.
 */
export function MaskedInput({ mask, value, onChange, inputRef, ...rest }: MaskedInputProps) {
  const element = useRef<HTMLInputElement | null>(null);
  const ref = useMergedRef(element, inputRef);
  // Where the caret goes after the re-render: after this many digits.
  const caretDigits = useRef<number | null>(null);

  useLayoutEffect(() => {
    const input = element.current;
    if (caretDigits.current === null || !input || document.activeElement !== input) return;
    const at = caretAfterDigits(input.value, caretDigits.current);
    input.setSelectionRange(at, at);
    caretDigits.current = null;
  });

  // A value from the server may come as bare digits: it is shown masked all the same.
  const shown = /^\d+$/.test(value) ? applyMask(mask, value.slice(0, maxDigits(mask))) : value;

  const handleChange = (event: ChangeEvent<HTMLInputElement>) => {
    const raw = event.currentTarget.value;
    const caret = event.currentTarget.selectionStart ?? raw.length;
    let digits = digitsOf(raw);
    let before = digitsOf(raw.slice(0, caret)).length;
    // Erasing a separator alone would change nothing: erase the digit before it instead.
    if (digits === digitsOf(shown) && raw.length < shown.length && before > 0) {
      digits = digits.slice(0, before - 1) + digits.slice(before);
      before -= 1;
    }
    digits = digits.slice(0, maxDigits(mask));
    caretDigits.current = Math.min(before, digits.length);
    onChange(applyMask(mask, digits));
  };

  return <InputBase {...rest} value={shown} ref={ref} onChange={handleChange} />;
}
