import { Alert, Button, Group, Loader, Modal, Paper, Stack, Text, TextInput } from '@mantine/core';
import { TOAST_MS } from '@portal/shared/limits';
import { PASSKEY_NAME_MAX, type PasskeyItem } from '@portal/shared/schemas/passkeys';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { InfoIcon } from '../../components/icons';
import { errorText, isServerError } from '../../lib/errors';
import { notify } from '../../lib/notify';
import { deviceName } from './device-name';
import { isCancelled, passkeysSupported, usePasskeyMutations, usePasskeys } from './passkeys-api';

function notifyFailure(error: unknown) {
  if (isCancelled(error)) {
    notify('info', errorText(null, 'errors.passkeyCancelled'), TOAST_MS.mfaEdit);
    return;
  }
  notify(isServerError(error) ? 'error' : 'warning', errorText(error), TOAST_MS.mfaEdit);
}

/** The account's passkeys: add one for this device, rename and remove them. */
export function PasskeysPanel() {
  const { t, i18n } = useTranslation(['account', 'common']);
  const list = usePasskeys();
  const { add, rename, remove } = usePasskeyMutations();
  const [supported, setSupported] = useState(true);
  const [renaming, setRenaming] = useState<PasskeyItem | null>(null);
  const [newName, setNewName] = useState('');
  const [removing, setRemoving] = useState<PasskeyItem | null>(null);

  useEffect(() => {
    let live = true;
    void passkeysSupported().then((yes) => live && setSupported(yes));
    return () => {
      live = false;
    };
  }, []);

  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));

  const addPasskey = () => {
    const device = deviceName(navigator.userAgent);
    add.mutate(device ? t('passkeys.nameOn', { device }) : t('passkeys.defaultName'), {
      onSuccess: (item) => {
        notify('success', t('passkeys.added'), TOAST_MS.mfaEdit);
        // The proposed name can be changed at once.
        setNewName(item.name);
        setRenaming(item);
      },
      onError: notifyFailure,
    });
  };

  return (
    <Stack gap="sm" data-testid="passkeys-panel">
      <Text size="sm">{t('passkeys.intro')}</Text>
      {!supported && (
        <Alert color="yellow" icon={<InfoIcon />}>
          {t('passkeys.unsupported')}
        </Alert>
      )}
      {list.isPending && <Loader size="sm" aria-label={t('common:loading.text')} />}
      {list.isError && <Text size="sm">{errorText(list.error)}</Text>}
      {list.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          {t('passkeys.none')}
        </Text>
      )}
      {list.data && list.data.length > 0 && (
        <Stack
          gap="xs"
          component="ul"
          style={{ listStyle: 'none', padding: 0, margin: 0 }}
          aria-label={t('passkeys.listLabel')}
        >
          {list.data.map((passkey) => (
            <Paper key={passkey.id} component="li" withBorder p="sm" radius="md" data-testid="passkey-item">
              <Group justify="space-between" align="flex-start" gap="xs" wrap="wrap">
                <Stack gap={2} style={{ minWidth: 0, flex: '1 1 12rem' }}>
                  <Text fw={600} style={{ overflowWrap: 'anywhere' }} data-testid="passkey-name">
                    {passkey.name}
                  </Text>
                  <Text size="sm">{t('passkeys.createdAt', { date: when(passkey.createdAt) })}</Text>
                  <Text size="sm">
                    {passkey.lastUsedAt
                      ? t('passkeys.lastUsedAt', { date: when(passkey.lastUsedAt) })
                      : t('passkeys.neverUsed')}
                  </Text>
                </Stack>
                <Group gap="xs">
                  <Button
                    variant="default"
                    size="xs"
                    aria-label={t('passkeys.renameOne', { name: passkey.name })}
                    onClick={() => {
                      setNewName(passkey.name);
                      setRenaming(passkey);
                    }}
                  >
                    {t('passkeys.rename')}
                  </Button>
                  <Button
                    variant="light"
                    color="red"
                    size="xs"
                    aria-label={t('passkeys.removeOne', { name: passkey.name })}
                    onClick={() => setRemoving(passkey)}
                  >
                    {t('passkeys.remove')}
                  </Button>
                </Group>
              </Group>
            </Paper>
          ))}
        </Stack>
      )}
      <Group justify="flex-end">
        <Button onClick={addPasskey} loading={add.isPending} disabled={!supported} data-testid="passkey-add">
          {t('passkeys.add')}
        </Button>
      </Group>

      <Modal
        opened={renaming !== null}
        onClose={() => setRenaming(null)}
        title={t('passkeys.renameTitle')}
        closeButtonProps={{ 'aria-label': t('common:actions.close') }}
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (!renaming || !newName.trim()) return;
            rename.mutate(
              { id: renaming.id, name: newName.trim() },
              {
                onSuccess: () => {
                  setRenaming(null);
                  notify('success', t('passkeys.renamed'), TOAST_MS.mfaEdit);
                },
                onError: notifyFailure,
              },
            );
          }}
        >
          <Stack gap="md">
            <TextInput
              label={t('passkeys.name')}
              description={t('passkeys.nameHint')}
              value={newName}
              maxLength={PASSKEY_NAME_MAX}
              required
              data-autofocus
              onChange={(event) => setNewName(event.currentTarget.value)}
              data-testid="passkey-name-input"
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRenaming(null)}>
                {t('common:actions.cancel')}
              </Button>
              <Button
                type="submit"
                loading={rename.isPending}
                disabled={!newName.trim()}
                data-testid="passkey-name-save"
              >
                {t('common:actions.save')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>

      <Modal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={t('passkeys.removeTitle')}
        closeButtonProps={{ 'aria-label': t('common:actions.close') }}
      >
        <Stack gap="md">
          <Text size="sm">{t('passkeys.removeText', { name: removing?.name ?? '' })}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              {t('common:actions.cancel')}
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              data-testid="passkey-remove-confirm"
              onClick={() =>
                removing &&
                remove.mutate(removing.id, {
                  onSuccess: () => {
                    setRemoving(null);
                    notify('success', t('passkeys.removed'), TOAST_MS.mfaEdit);
                  },
                  onError: notifyFailure,
                })
              }
            >
              {t('passkeys.remove')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
