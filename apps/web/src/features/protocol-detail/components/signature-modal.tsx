import '@mantine/core/styles/List.css';
import '@mantine/core/styles/Badge.css';
import { Alert, Anchor, Badge, Button, Group, List, Loader, Modal, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SignatureCheck } from '@portal/shared/schemas/signatures';
import { api } from '../../../lib/api-client';
import { formatExamDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';

export const SIGNATURE_VALIDATOR_URL = 'https://validar.iti.gov.br';

export interface SignedReport {
  resourceId: string;
  exam: string;
}

interface Verification {
  resourceId: string;
  verificationCode: string;
  check: SignatureCheck | null;
}

type Tone = 'ok' | 'warn' | 'bad';
// Dark enough for white text at 7:1 (WCAG AAA), as the rest of the app.
const COLOR: Record<Tone, string> = { ok: '#065f46', warn: '#7a4b00', bad: '#8a1414' };

/** The verdict in one line: valid (and trusted), valid but not vouched for, or not valid. */
export function signatureVerdict(check: SignatureCheck): { key: string; tone: Tone } {
  if (!check.signatureValid) return { key: 'invalid', tone: 'bad' };
  if (check.revocation === 'revoked') return { key: 'revoked', tone: 'bad' };
  if (check.chain === 'trusted') return { key: 'valid', tone: 'ok' };
  return { key: check.chain === 'expired' ? 'expired' : 'untrusted', tone: 'warn' };
}

/** What the server found about one signature, in plain words (shared with `/validar`). */
export function SignatureFacts({ check }: { check: SignatureCheck }) {
  const { t } = useTranslation('results');
  const verdict = signatureVerdict(check);
  const signer = check.signer;
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <Badge color={COLOR[verdict.tone]} variant="filled" size="lg" radius="sm">
          {t(`signature.verdict.${verdict.key}`)}
        </Badge>
      </Group>
      <Text size="sm">{t(`signature.explain.${verdict.key}`)}</Text>
      <List size="sm" spacing={2}>
        <List.Item>
          {check.signatureValid
            ? t('signature.facts.matches')
            : t(`signature.facts.problem.${check.problem ?? 'mismatch'}`)}
        </List.Item>
        {signer?.name && <List.Item>{t('signature.facts.signer', { name: signer.name })}</List.Item>}
        {signer?.crm && <List.Item>{t('signature.facts.crm', { crm: signer.crm })}</List.Item>}
        {signer?.cpf && <List.Item>{t('signature.facts.cpf', { cpf: signer.cpf })}</List.Item>}
        {check.signedAt && (
          <List.Item>{t('signature.facts.signedAt', { date: formatExamDate(check.signedAt, true) })}</List.Item>
        )}
        {check.signatureValid && <List.Item>{t(`signature.facts.chain.${check.chain}`)}</List.Item>}
        {check.signatureValid && check.chain !== 'untrusted' && (
          <List.Item>{t(`signature.facts.revocation.${check.revocation}`)}</List.Item>
        )}
        {signer?.issuer && <List.Item>{t('signature.facts.issuer', { issuer: signer.issuer })}</List.Item>}
      </List>
    </Stack>
  );
}

function ReportSignature({ report }: { report: SignedReport }) {
  const { t } = useTranslation('results');
  const query = useQuery({
    queryKey: ['signature-verification', report.resourceId],
    queryFn: () =>
      api<Verification>('/api/v2/delivery/resource/signature/verification', {
        query: { resourceId: report.resourceId },
      }),
    staleTime: 0,
    gcTime: 0,
  });
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label={report.exam}>
      <Stack gap="xs">
        <Title order={3} size="h5">
          {report.exam}
        </Title>
        {query.isPending && <Loader size="sm" aria-label={t('signature.checking')} />}
        {query.isError && (
          <Alert color="red" variant="light">
            {errorText(query.error)}
          </Alert>
        )}
        {query.data && (
          <>
            {query.data.check ? (
              <SignatureFacts check={query.data.check} />
            ) : (
              <Text size="sm">{t('signature.noCheck')}</Text>
            )}
            {query.data.verificationCode && (
              <Text size="sm">
                {t('signature.code')}{' '}
                <Text span ff="monospace" fw={700}>
                  {query.data.verificationCode}
                </Text>
              </Text>
            )}
          </>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * Spec 2.9 and issue 22.3: each signed report's signature as the server checked it just now, in
 * plain words, and how to check it on the government's validator as well.
 */
export function SignatureModal({
  opened,
  onClose,
  reports,
}: {
  opened: boolean;
  onClose: () => void;
  reports: SignedReport[];
}) {
  const { t } = useTranslation('results');
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('signature.title')}
      size="lg"
      closeButtonProps={{ 'aria-label': t('modal.close') }}
    >
      <Stack gap="sm">
        {reports.length === 0 ? (
          <Text size="sm">{t('signature.noneSigned')}</Text>
        ) : (
          <>
            <Text size="sm">{t('signature.checkedNow')}</Text>
            {opened && reports.map((report) => <ReportSignature key={report.resourceId} report={report} />)}
          </>
        )}
        <Text size="sm" fw={600}>
          {t('signature.alsoOutside')}
        </Text>
        <List type="ordered" size="sm" spacing={4}>
          <List.Item>{t('signature.step1')}</List.Item>
          <List.Item>
            {t('signature.step2')}{' '}
            <Anchor href={SIGNATURE_VALIDATOR_URL} target="_blank" rel="noopener noreferrer">
              {SIGNATURE_VALIDATOR_URL}
            </Anchor>
          </List.Item>
          <List.Item>{t('signature.step3')}</List.Item>
          <List.Item>{t('signature.step4')}</List.Item>
        </List>
        <Button onClick={onClose} w="fit-content">
          {t('modal.ok')}
        </Button>
      </Stack>
    </Modal>
  );
}
