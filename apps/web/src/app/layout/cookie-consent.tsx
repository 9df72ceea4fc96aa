import { Anchor, Button, Container, Group, Paper, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useStoredValue } from '../../lib/stored-value';

const CONSENT_KEY = 'portal.cookieConsent';
const ACCEPTED = JSON.stringify('accepted');

/** Spec 1: the cookie-consent banner; the acceptance is remembered on this browser. */
export function CookieConsent() {
  const { t } = useTranslation();
  const [consent, setConsent] = useStoredValue('localStorage', CONSENT_KEY);
  // Stored as JSON, as it always was.
  if (consent === ACCEPTED) return null;
  return (
    <Paper
      component="section"
      aria-label={t('cookies.title')}
      shadow="md"
      radius={0}
      withBorder
      style={{ position: 'fixed', insetInline: 0, bottom: 0, zIndex: 150 }}
      data-testid="cookie-consent"
    >
      <Container size="lg" py="sm">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Text size="sm" style={{ flex: '1 1 16rem' }}>
            {t('cookies.text')}{' '}
            <Anchor component={Link} to="/politica-de-privacidade" size="sm">
              {t('footer.privacyPolicy')}
            </Anchor>
          </Text>
          <Button onClick={() => setConsent(ACCEPTED)}>{t('cookies.accept')}</Button>
        </Group>
      </Container>
    </Paper>
  );
}
