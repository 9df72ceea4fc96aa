import '@mantine/core/styles/ScrollArea.css';
import { Alert, Button, Group, Loader, Modal, ScrollArea } from '@mantine/core';
import { TERMS_MODAL_BODY_PX } from '@portal/shared/limits';
import { useTranslation } from 'react-i18next';
import { type TermType, type TermUserType, useCurrentTerms } from '../lib/terms-api';
import { AlertIcon } from './icons';
import { TermText } from './term-text';

export interface LegalModalProps {
  kind: TermType | null;
  userType: TermUserType;
  onClose: () => void;
}

/** Spec 2.9: the service terms or privacy policy in a modal whose body scrolls at 278 px (spec 9). */
export function LegalModal({ kind, userType, onClose }: LegalModalProps) {
  const { t } = useTranslation();
  const terms = useCurrentTerms(userType, kind !== null);
  const term = terms.data?.find((item) => item.termType === kind);
  return (
    <Modal
      opened={kind !== null}
      onClose={onClose}
      title={kind === 'PP' ? t('legal.privacyPolicy') : t('legal.termsOfService')}
      size="lg"
      closeButtonProps={{ 'aria-label': t('actions.close') }}
    >
      <ScrollArea h={TERMS_MODAL_BODY_PX} type="auto" offsetScrollbars>
        {/* A keyboard user must be able to scroll the text, so the region takes focus. */}
        <div
          tabIndex={0}
          role="document"
          aria-label={kind === 'PP' ? t('legal.privacyPolicy') : t('legal.termsOfService')}
        >
          {terms.isPending && <Loader size="sm" aria-label={t('loading.text')} />}
          {terms.isError && (
            <Alert color="yellow" icon={<AlertIcon />}>
              {t('legal.loadFailed')}
            </Alert>
          )}
          {term && <TermText text={term.data} titleOrder={3} />}
        </div>
      </ScrollArea>
      <Group justify="flex-end" mt="md">
        <Button onClick={onClose}>{t('actions.close')}</Button>
      </Group>
    </Modal>
  );
}
