import { Alert, Anchor } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { InfoIcon } from '../../../components/icons';

/** Spec 8: an incomplete profile is pointed out on the patient's dashboard, in the page's flow. */
export function ProfilePrompt() {
  const { t } = useTranslation('results');
  return (
    <Alert color="medical" icon={<InfoIcon />} title={t('profilePrompt.title')} data-testid="profile-prompt">
      {t('profilePrompt.text')}{' '}
      <Anchor component={Link} to="/patient/edit">
        {t('profilePrompt.action')}
      </Anchor>
    </Alert>
  );
}
