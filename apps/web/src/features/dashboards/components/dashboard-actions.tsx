import { Button, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/**
 * The buttons beside the patient's title: link a protocol, and the history when a protocol of hers
 * has one. Drawn at build time too (with no history), so the drawing's rows stay where the app's are.
 */
export function PatientActions({
  onLink,
  onHistory,
  hasHistory,
}: {
  onLink?: () => void;
  onHistory?: () => void;
  hasHistory: boolean;
}) {
  const { t } = useTranslation('results');
  return (
    <>
      <Button onClick={onLink}>{t('link.open')}</Button>
      {hasHistory && (
        <Button variant="light" onClick={onHistory}>
          {t('history.open')}
        </Button>
      )}
    </>
  );
}

/** The physician's two lists (spec 2.7): his own, and the external exams his groups bring him. */
export function PhysicianNav({ current }: { current: 'protocols' | 'exams' }) {
  const { t } = useTranslation('results');
  return (
    <Group gap="xs" component="nav" aria-label={t('physicianNav.label')}>
      {(['protocols', 'exams'] as const).map((variant) => (
        <Button
          key={variant}
          component={Link}
          to={`/dashboard/physician/${variant}`}
          size="compact-md"
          variant={variant === current ? 'filled' : 'default'}
          aria-current={variant === current ? 'page' : undefined}
        >
          {t(variant === 'exams' ? 'physicianNav.external' : 'physicianNav.own')}
        </Button>
      ))}
    </Group>
  );
}
