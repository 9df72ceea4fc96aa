import { type Control, Controller, type FieldPath, type FieldValues } from 'react-hook-form';
import { MaskedInput, type MaskedInputProps } from './masked-input';

type MaskedFieldProps<T extends FieldValues> = Omit<
  MaskedInputProps,
  'name' | 'value' | 'onChange' | 'onBlur' | 'inputRef'
> & {
  control: Control<T>;
  name: FieldPath<T>;
};

/** A masked input bound to a react-hook-form field: value, change, blur and focus ref. */
export function MaskedField<T extends FieldValues>({ control, name, ...props }: MaskedFieldProps<T>) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <MaskedInput
          {...props}
          name={field.name}
          value={(field.value as string | undefined) ?? ''}
          onChange={field.onChange}
          onBlur={field.onBlur}
          inputRef={field.ref}
        />
      )}
    />
  );
}
