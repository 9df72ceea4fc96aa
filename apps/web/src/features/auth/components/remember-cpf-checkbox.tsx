import { Checkbox } from '@mantine/core';

export interface RememberCpfCheckboxProps {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}

export default function RememberCpfCheckbox({ label, checked, onChange }: RememberCpfCheckboxProps) {
  return <Checkbox label={label} checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} />;
}
