import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Pagination.css';
import { Box, Button, Card, Group, Loader, Modal, Pagination, Stack, Table, Text } from '@mantine/core';
import { PAGER_WINDOW, TOAST_MS } from '@portal/shared/limits';
import type { ShareRecord } from '@portal/shared/schemas/shares';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ScrollTable } from '../../../components/scroll-table';
import { StatusBadge } from '../../../components/status-badge';
import { formatExamDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { notify } from '../../../lib/notify';
import { useRevokeShareMutation, useShares } from '../api/account-api';

const SIZE = 10;

function ShareState({ share, onRevoke }: { share: ShareRecord; onRevoke: () => void }) {
  const { t } = useTranslation('account');
  // Spec 4.7: active and valid → yes + revoke; active and expired → expired; not active → canceled.
  if (!share.active || share.canceled) return <StatusBadge tone="neutral">{t('shares.canceled')}</StatusBadge>;
  if (share.expired) return <StatusBadge tone="warning">{t('shares.expired')}</StatusBadge>;
  return (
    <Group gap="xs" wrap="nowrap">
      <StatusBadge tone="success">{t('shares.yes')}</StatusBadge>
      <Button size="compact-sm" variant="subtle" color="red" onClick={onRevoke}>
        {t('shares.revoke')}
      </Button>
    </Group>
  );
}

/** Spec 2.10: the patient's shared protocol links, with revocation after a confirmation. */
export function SharesTable({ userId }: { userId: string }) {
  const { t } = useTranslation(['account', 'common']);
  const [page, setPage] = useState(1);
  const shares = useShares(userId, page, SIZE);
  const revoke = useRevokeShareMutation();
  const [confirming, setConfirming] = useState<ShareRecord | null>(null);

  if (shares.isPending) return <Loader size="sm" aria-label={t('common:loading.text')} />;
  if (shares.isError) return <Text size="sm">{errorText(shares.error)}</Text>;
  if (shares.data.items.length === 0) return <Text size="sm">{t('shares.empty')}</Text>;
  const pages = Math.max(1, Math.ceil(shares.data.total / SIZE));

  return (
    <Stack gap="sm">
      {/* Phones get one card per share; wider screens the table. Chosen by CSS, so the first paint is final. */}
      <Stack gap="xs" hiddenFrom="sm" data-testid="share-cards">
        {shares.data.items.map((share) => (
          <Card key={share.id} withBorder padding="sm" data-testid="share-card">
            <Stack gap={4}>
              <Text fw={700} style={{ wordBreak: 'break-all' }}>
                {share.email}
              </Text>
              <Text size="sm">
                {t('shares.protocol')}: {share.protocolNumber}
              </Text>
              <Text size="sm">
                {t('shares.sentAt')}: {formatExamDate(share.creationDate) ?? t('shares.notInformed')}
              </Text>
              <Text size="sm">
                {t('shares.days')}: {share.daysExpiration}
              </Text>
              <ShareState share={share} onRevoke={() => setConfirming(share)} />
            </Stack>
          </Card>
        ))}
      </Stack>
      <Box visibleFrom="sm">
        <ScrollTable label={t('shares.tableLabel')} minWidth={560}>
          <Table striped withTableBorder>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('shares.sentAt')}</Table.Th>
                <Table.Th scope="col">{t('shares.protocol')}</Table.Th>
                <Table.Th scope="col">{t('shares.email')}</Table.Th>
                <Table.Th scope="col">{t('shares.days')}</Table.Th>
                <Table.Th scope="col">{t('shares.active')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shares.data.items.map((share) => (
                <Table.Tr key={share.id}>
                  <Table.Td>{formatExamDate(share.creationDate) ?? t('shares.notInformed')}</Table.Td>
                  <Table.Td>{share.protocolNumber}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{share.email}</Table.Td>
                  <Table.Td>{share.daysExpiration}</Table.Td>
                  <Table.Td>
                    <ShareState share={share} onRevoke={() => setConfirming(share)} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      </Box>
      {pages > 1 && (
        <Pagination
          total={pages}
          value={page}
          onChange={setPage}
          siblings={Math.floor(PAGER_WINDOW / 2)}
          getControlProps={(control) => ({ 'aria-label': t(`shares.pager.${control}`) })}
        />
      )}
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={t('shares.confirmTitle')}
        centered
        closeButtonProps={{ 'aria-label': t('common:actions.close') }}
      >
        <Text size="sm" mb="md">
          {t('shares.confirmText', { email: confirming?.email ?? '', protocol: confirming?.protocolNumber ?? '' })}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirming(null)}>
            {t('common:actions.cancel')}
          </Button>
          <Button
            color="red"
            loading={revoke.isPending}
            onClick={() =>
              confirming &&
              revoke.mutate(confirming.id, {
                onSuccess: () => {
                  setConfirming(null);
                  notify('success', t('shares.revoked'), TOAST_MS.mfaEdit);
                },
                onError: (error) => notify('error', errorText(error), TOAST_MS.mfaEdit),
              })
            }
          >
            {t('shares.revoke')}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
