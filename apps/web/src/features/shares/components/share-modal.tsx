import '@mantine/core/styles/Combobox.css';
import '@mantine/core/styles/ScrollArea.css';
import '@mantine/core/styles/Pill.css';
import '@mantine/core/styles/PillsInput.css';
import { Button, Group, Modal, Select, Stack, TagsInput, Text, Textarea } from '@mantine/core';
import {
  SHARE_DEFAULT_PERIOD_DAYS,
  SHARE_MAX_EMAILS,
  SHARE_MESSAGE_MAX,
  SHARE_PERIODS_DAYS,
  TOAST_MS,
} from '@portal/shared/limits';
import { zEmail } from '@portal/shared/validation';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProtocolItem } from '../../../components/results-api';
import { errorText, isServerError } from '../../../lib/errors';
import { currentLanguage } from '../../../lib/i18n';
import { notify } from '../../../lib/notify';
import { useShareMutation } from '../api/shares-api';

function emailProblems(emails: string[]): 'required' | 'max' | 'invalid' | null {
  if (emails.length === 0) return 'required';
  if (emails.length > SHARE_MAX_EMAILS) return 'max';
  return emails.every((e) => zEmail.safeParse(e).success) ? null : 'invalid';
}

/** Spec 2.9, 5 and 9: shares a protocol with 1 to 5 e-mails for a chosen number of days. */
export function ShareModal({ protocol, onClose }: { protocol: ProtocolItem | null; onClose: () => void }) {
  const { t } = useTranslation(['results', 'common']);
  const share = useShareMutation();
  const [emails, setEmails] = useState<string[]>([]);
  const [message, setMessage] = useState('');
  const [period, setPeriod] = useState(String(SHARE_DEFAULT_PERIOD_DAYS));
  const [touched, setTouched] = useState(false);
  const problem = emailProblems(emails);
  const emailError =
    (touched || emails.length > 0) && problem
      ? problem === 'max'
        ? t('results:share.maxEmails')
        : problem === 'invalid'
          ? t('results:share.invalidEmail')
          : touched
            ? t('results:form.required')
            : null
      : null;

  const close = () => {
    setEmails([]);
    setMessage('');
    setPeriod(String(SHARE_DEFAULT_PERIOD_DAYS));
    setTouched(false);
    share.reset();
    onClose();
  };

  const submit = () => {
    setTouched(true);
    if (!protocol || problem) return;
    share.mutate(
      {
        emails,
        protocols: [protocol.requestId],
        message,
        period: Number(period),
        language: currentLanguage(),
        institutionId: protocol.institutionId,
      },
      {
        onSuccess: () => {
          notify('success', t('results:share.success'), TOAST_MS.long);
          close();
        },
        onError: (error) => notify(isServerError(error) ? 'error' : 'warning', errorText(error), TOAST_MS.long),
      },
    );
  };

  return (
    <Modal
      opened={protocol !== null}
      onClose={close}
      title={t('results:share.title', { number: protocol?.number ?? '' })}
      closeButtonProps={{ 'aria-label': t('results:modal.close') }}
    >
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack gap="md">
          <TagsInput
            label={t('results:share.emails')}
            description={t('results:share.emailsHint')}
            required
            value={emails}
            // Spec 5: a space ends an address, like Enter or a comma.
            splitChars={[' ', ',', ';']}
            acceptValueOnBlur
            onChange={(next) => setEmails(next.map((e) => e.trim().toLowerCase()).filter(Boolean))}
            error={emailError}
            clearable
            data-autofocus
          />
          <Textarea
            label={t('results:share.message')}
            value={message}
            maxLength={SHARE_MESSAGE_MAX}
            autosize
            minRows={2}
            onChange={(event) => setMessage(event.currentTarget.value.slice(0, SHARE_MESSAGE_MAX))}
            description={
              <Text component="span" size="xs" aria-live="polite">
                {t('results:share.counter', { length: message.length, max: SHARE_MESSAGE_MAX })}
              </Text>
            }
            inputWrapperOrder={['label', 'input', 'description', 'error']}
          />
          <Select
            label={t('results:share.period')}
            value={period}
            allowDeselect={false}
            onChange={(v) => setPeriod(v ?? String(SHARE_DEFAULT_PERIOD_DAYS))}
            data={SHARE_PERIODS_DAYS.map((d) => ({ value: String(d), label: t('results:share.days', { count: d }) }))}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t('results:modal.cancel')}
            </Button>
            <Button type="submit" loading={share.isPending}>
              {t('results:share.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
