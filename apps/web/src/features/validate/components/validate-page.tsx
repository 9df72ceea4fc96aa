import { Alert, Button, FileInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { ValidateAnswer } from '@portal/shared/schemas/signatures';
import { PageCard } from '../../../components/page-card';
import { api } from '../../../lib/api-client';
import { formatExamDate } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { usePageTitle } from '../../../lib/use-page-title';
import { SignatureFacts } from '../../protocol-detail/components/signature-modal';

const HASH = /^[0-9a-f]{64}$/;

async function sha256Of(file: File): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Issue 22.3 `/validar`: anyone checks a report by the code in its margin and the file (hashed
 * here, in the browser: the file is never sent) or its SHA-256. No sign-in.
 */
export default function ValidatePage() {
  const { t } = useTranslation(['results', 'common']);
  usePageTitle(t('validate.title'));
  const [params] = useSearchParams();
  const [code, setCode] = useState(params.get('code') ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [hash, setHash] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const check = useMutation({
    mutationFn: async () => {
      const sha256 = file ? await sha256Of(file) : hash.trim().toLowerCase();
      return api<ValidateAnswer>('/api/v2/public/validate', {
        method: 'POST',
        auth: false,
        sessionExpiryOn401: false,
        body: { code, sha256 },
      });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.replace(/[\s-]/g, '').length !== 10) return setProblem(t('validate.codeInvalid'));
    if (!file && !HASH.test(hash.trim().toLowerCase())) return setProblem(t('validate.fileRequired'));
    setProblem(null);
    check.mutate();
  };

  const answer = check.data;
  return (
    <PageCard title={t('validate.title')} width={640}>
      <Text>{t('validate.intro')}</Text>
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <TextInput
            label={t('validate.code')}
            description={t('validate.codeHint')}
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={20}
            required
            styles={{ input: { fontFamily: 'monospace', letterSpacing: '0.08em' } }}
          />
          <FileInput
            label={t('validate.file')}
            description={t('validate.fileHint')}
            placeholder={t('validate.filePlaceholder')}
            value={file}
            onChange={setFile}
            clearable
            clearButtonProps={{ 'aria-label': t('validate.clearFile') }}
          />
          <TextInput
            label={t('validate.hash')}
            description={t('validate.hashHint')}
            value={hash}
            onChange={(e) => setHash(e.currentTarget.value)}
            disabled={file !== null}
            autoComplete="off"
            spellCheck={false}
            maxLength={80}
            styles={{ input: { fontFamily: 'monospace' } }}
          />
          {problem && (
            <Alert color="red" variant="light" role="alert">
              {problem}
            </Alert>
          )}
          <Button type="submit" loading={check.isPending} w="fit-content">
            {t('validate.submit')}
          </Button>
        </Stack>
      </form>
      {check.isError && (
        <Alert color="red" variant="light" role="alert">
          {errorText(check.error)}
        </Alert>
      )}
      {answer && (
        <Stack gap="sm" aria-live="polite">
          {answer.outcome === 'unknown-code' && (
            <Alert color="red" variant="light" title={t('validate.unknownTitle')}>
              {t('validate.unknownText')}
            </Alert>
          )}
          {answer.report && (
            <Alert
              color={answer.outcome === 'match' ? 'medical' : 'yellow'}
              variant="light"
              title={t(answer.outcome === 'match' ? 'validate.matchTitle' : 'validate.differentTitle')}
            >
              <Stack gap={4}>
                <Text size="sm">
                  {t('validate.delivered', {
                    institution: answer.report.institution,
                    date: formatExamDate(answer.report.deliveredAt),
                    initials: answer.report.patientInitials,
                  })}
                </Text>
                <Text size="sm">
                  {answer.file ? t(`validate.fileKind.${answer.file}`) : t('validate.differentText')}
                </Text>
              </Stack>
            </Alert>
          )}
          {answer.report &&
            (answer.signature ? (
              <SignatureFacts check={answer.signature} />
            ) : (
              <Text size="sm">{t('validate.unsigned')}</Text>
            ))}
        </Stack>
      )}
    </PageCard>
  );
}
