import { Alert } from '@mantine/core';
import type { ProtocolItem } from '@portal/shared/schemas/delivery';
import { InfoIcon } from '../../../components/icons';
import { currentLanguage, HTML_LANG } from '../../../lib/i18n';

/**
 * Spec 2.8: the banner an institution sets for its protocol screens. Institutions write it in
 * pt-br at least, so that text stands in for a language they left out.
 */
export function InstitutionNotice({ notice }: { notice: ProtocolItem['institutionNotice'] }) {
  if (!notice) return null;
  const wanted = currentLanguage();
  const language = notice[wanted] ? wanted : 'pt-br';
  return (
    // A note, not an alert: it is read in its place rather than interrupting on every page load.
    <Alert
      variant="light"
      color="medical"
      icon={<InfoIcon />}
      role="note"
      lang={HTML_LANG[language]}
      data-testid="institution-notice"
      style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}
    >
      {notice[language]}
    </Alert>
  );
}
