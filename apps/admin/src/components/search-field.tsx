import { TextInput } from '@mantine/core';

/** A list's search box; the list follows what is typed (the screen debounces it). */
export function SearchField(props: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <TextInput
      label={props.label}
      type="search"
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      w={320}
      maw="100%"
    />
  );
}
