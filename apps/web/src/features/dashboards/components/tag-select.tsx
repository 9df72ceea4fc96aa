import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useUserTags } from '../../../components/results-api';

/** Spec 2.7: the tags (groups) the physician or external user belongs to. */
export function TagSelect({ value, onChange }: { value: string | null; onChange: (tag: string | null) => void }) {
  const { t } = useTranslation('results');
  const tags = useUserTags();
  return (
    <Select
      label={t('filters.tag')}
      placeholder={t('filters.allTags')}
      clearable
      data={(tags.data ?? []).map((tag) => ({ value: tag.value, label: `${tag.text} · ${tag.institutionName}` }))}
      value={value}
      onChange={onChange}
      miw={220}
    />
  );
}
