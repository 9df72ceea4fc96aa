import { Anchor, Box, Container, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PartnerLogo } from '../../components/logo';
import { useYear } from '../../lib/drawn-screen';

export function Footer() {
  const { t } = useTranslation();
  const year = useYear();
  return (
    <Box component="footer" bg="white" mt="xl" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
      <Container size="lg" py="md">
        <Group justify="space-between" align="center" gap="md">
          <Stack gap={4}>
            <Group gap="md">
              <Anchor component={Link} to="/politica-de-privacidade" size="sm">
                {t('footer.privacyPolicy')}
              </Anchor>
              <Anchor component={Link} to="/termos-de-uso" size="sm">
                {t('footer.termsOfUse')}
              </Anchor>
              <Anchor component={Link} to="/validar" size="sm">
                {t('footer.validate')}
              </Anchor>
            </Group>
            <Text size="xs" c="dimmed">
              {t('footer.rights', { year })}
            </Text>
          </Stack>
          <Group gap="xs" align="center">
            <Text size="xs" c="dimmed">
              {t('footer.partner')}
            </Text>
            <PartnerLogo />
          </Group>
        </Group>
      </Container>
    </Box>
  );
}
