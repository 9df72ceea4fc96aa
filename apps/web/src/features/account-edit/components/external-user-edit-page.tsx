import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import { Button, Group, Paper, Select, Stack, Title } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate } from 'react-router';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { useCredentials } from '../../../lib/session';
import { type UserRecord, useEditExternalUserMutation, useMyRecord } from '../api/account-api';
import { AccountPageFrame } from './account-page-frame';
import { ChangePasswordForm } from './change-password-form';
import { PasskeysPanel } from '../../passkeys/passkeys-panel';

function ExternalUserEditForm({ record }: { record: UserRecord }) {
  const { t } = useTranslation(['account', 'common']);
  const mutation = useEditExternalUserMutation();
  const [tagId, setTagId] = useState<string | null>(record.tagId);

  const save = () => {
    if (!tagId) return;
    mutation.mutate(
      { tagId },
      {
        onSuccess: () => notify('success', t('edit.saved'), TOAST_MS.mfaEdit),
        // Spec 8: a failed favourite-group change has its own default message.
        onError: (error) => notify('error', errorText(error, 'errors.favoriteGroup'), TOAST_MS.mfaEdit),
      },
    );
  };

  return (
    <Stack gap="md">
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('edit.sections.access')}
          </Title>
          <ChangePasswordForm />
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('edit.sections.passkeys')}
          </Title>
          <PasskeysPanel />
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Title order={2} size="h4">
            {t('edit.sections.preferences')}
          </Title>
          <Select
            label={t('edit.favoriteGroup')}
            description={t('edit.favoriteGroupHint')}
            data={record.tags.map((tag) => ({ value: tag.id, label: tag.tag }))}
            value={tagId}
            onChange={setTagId}
            allowDeselect={false}
            nothingFoundMessage={t('edit.noGroups')}
          />
        </Stack>
      </Paper>
      <Group justify="flex-end" gap="sm">
        <Button component={Link} to="/landing/" variant="default">
          {t('common:actions.back')}
        </Button>
        <Button onClick={save} disabled={!tagId || tagId === record.tagId} loading={mutation.isPending}>
          {t('common:actions.save')}
        </Button>
      </Group>
    </Stack>
  );
}

/** Spec 2.10 external user 'my account': password and favourite group. */
export default function ExternalUserEditPage() {
  const credentials = useCredentials();
  const record = useMyRecord();
  if (!credentials?.user?.isExternalType) return <Navigate to="/landing/" replace />;
  return (
    <AccountPageFrame loading={record.isPending} error={record.error}>
      {record.data && <ExternalUserEditForm record={record.data} />}
    </AccountPageFrame>
  );
}
