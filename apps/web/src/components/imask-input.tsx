import { InputBase, type InputBaseProps } from '@mantine/core';
import type { Ref } from 'react';
import { IMaskInput } from 'react-imask';

type MaskDefinition = string | ReadonlyArray<{ mask: string }>;

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

/** A Mantine input that types its mask as the person types (react-imask); the value keeps the mask. */
export function MaskedInput({ mask, value, onChange, inputRef, ...rest }: MaskedInputProps) {
  return (
    <InputBase
      {...rest}
      component={IMaskInput}
      // imask takes either one pattern or a list it picks from by length.
      mask={typeof mask === 'string' ? mask : (mask as Array<{ mask: string }>)}
      value={value}
      inputRef={inputRef}
      onAccept={(next: string) => onChange(next)}
    />
  );
}
