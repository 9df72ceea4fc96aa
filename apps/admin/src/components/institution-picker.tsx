import { NativeSelect } from '@mantine/core';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useInstitutions } from '../lib/queries';

/** Picks the institution a screen works on; company users have one, chosen for them. */
export function InstitutionPicker(props: {
  value: string;
  onChange: (id: string) => void;
  allowAll?: boolean;
  label?: string;
}) {
  const { t } = useTranslation();
  const { data } = useInstitutions();
  const { value, onChange, allowAll } = props;
  useEffect(() => {
    if (!allowAll && !value && data?.[0]) onChange(data[0].id);
  }, [allowAll, value, data, onChange]);
  return (
    <NativeSelect
      label={props.label ?? t('fields.institution')}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      w={320}
      maw="100%"
      data={[
        ...(allowAll ? [{ value: '', label: t('common.allInstitutions') }] : []),
        ...(data ?? []).map((i) => ({ value: i.id, label: `${i.name} (${i.code})` })),
      ]}
    />
  );
}
