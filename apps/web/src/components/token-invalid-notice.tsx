import { Alert, Button, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AlertIcon } from './icons';

/** Spec 8: 'this access token expired or account not activated', with a way back to landing. */
export function TokenInvalidNotice() {
  const { t } = useTranslation();
  return (
    <Alert color="yellow" variant="light" icon={<AlertIcon />} title={t('tokenInvalid.title')} role="status">
      <Stack gap="xs" align="flex-start">
        {t('tokenInvalid.text')}
        <Button component={Link} to="/landing/" variant="light" size="sm">
          {t('tokenInvalid.back')}
        </Button>
      </Stack>
    </Alert>
  );
}
