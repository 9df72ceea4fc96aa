import { Alert, Button, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { InfoIcon, MailIcon } from '../../../components/icons';
import { PageCard } from '../../../components/page-card';
import { usePageTitle } from '../../../lib/use-page-title';

/** Spec 2.1 /physician-info: how a physician registers (two info messages). */
export default function PhysicianInfoPage() {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('physicianInfo.title'));
  return (
    <PageCard title={t('physicianInfo.title')}>
      <Stack gap="md">
        <Alert color="medical" variant="light" icon={<InfoIcon />} title={t('physicianInfo.inviteTitle')}>
          {t('physicianInfo.inviteText')}
        </Alert>
        <Alert color="medical" variant="light" icon={<MailIcon />} title={t('physicianInfo.linkTitle')}>
          {t('physicianInfo.linkText')}
        </Alert>
        <Button component={Link} to="/login" variant="light" w="fit-content">
          {t('common:notFound.back')}
        </Button>
      </Stack>
    </PageCard>
  );
}
