import { Anchor, Button, Group, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { InstitutionListItem } from '@portal/shared/schemas/administration';
import { DataTable } from '../components/data-table';
import { Page } from '../components/page';
import { currentLanguage } from '../lib/i18n';
import { formatDateTime, useInstitutions } from '../lib/queries';

export function InstitutionListPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const { data } = useInstitutions(debounced || undefined);
  const language = currentLanguage();
  return (
    <Page
      title={t('institutions.title')}
      actions={
        <Group justify="space-between" align="flex-end">
          <TextInput
            label={t('institutions.search')}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            type="search"
            w={320}
            maw="100%"
          />
          <Button component={Link} to="/institution/new">
            {t('institutions.new')}
          </Button>
        </Group>
      }
    >
      <DataTable<InstitutionListItem>
        caption={t('institutions.title')}
        rows={data ?? []}
        rowKey={(r) => r.id}
        columns={[
          {
            label: t('fields.name'),
            cell: (r) => (
              <Anchor component={Link} to={`/institution/edit/${r.id}`}>
                {r.name}
              </Anchor>
            ),
          },
          { label: t('fields.code'), cell: (r) => r.code },
          { label: t('fields.supportEmail'), cell: (r) => r.supportEmail ?? '—' },
          { label: t('fields.updatedAt'), cell: (r) => formatDateTime(r.updatedAt, language) },
        ]}
      />
    </Page>
  );
}
