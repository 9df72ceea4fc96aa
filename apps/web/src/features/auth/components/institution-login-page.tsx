import { Alert, Anchor, Container, Group, Image, Paper, Stack, Text, Title } from '@mantine/core';
import { digitsOnly } from '@portal/shared/formats';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { AlertIcon, ChatIcon, MailIcon, PhoneIcon } from '../../../components/icons';
import { FullPageLoader } from '../../../app/pages/loading-page';
import { NotFoundPage } from '../../../app/pages/not-found-page';
import { statusOf } from '../../../lib/errors';
import { formatPhone } from '../../../lib/mask-format';
import { usePageTitle } from '../../../lib/use-page-title';
import { useCustomLoginPage, type CustomLoginPage } from '../api/auth-api';
import { LoginPanels } from './login-panels';

function Branding({ page }: { page: CustomLoginPage }) {
  if (page.viewType === 1 && page.logoPath) {
    return (
      <Title order={1} ta="center">
        <Image src={page.logoPath} alt={page.name} mah={96} fit="contain" mx="auto" w="auto" />
      </Title>
    );
  }
  return (
    <Title order={1} size="h2" ta="center">
      {page.name}
    </Title>
  );
}

/** International digits for tel: and wa.me links; a national Brazilian number gets the 55 prefix. */
function internationalDigits(phone: string): string {
  const digits = digitsOnly(phone);
  return digits.length === 10 || digits.length === 11 ? `55${digits}` : digits;
}

function SupportContacts({ page }: { page: CustomLoginPage }) {
  const { t } = useTranslation('auth');
  if (!page.supportEmail && !page.supportPhoneNumber && !page.supportWhatsAppNumber) return null;
  return (
    <Paper withBorder p="md" radius="lg" component="section" aria-labelledby="support-title">
      <Stack gap={6}>
        <Title order={2} size="h5" id="support-title">
          {t('institution.support')}
        </Title>
        {page.supportEmail && (
          <Group gap={8} wrap="nowrap">
            <MailIcon size={18} />
            <Anchor href={`mailto:${page.supportEmail}`} size="sm">
              {page.supportEmail}
            </Anchor>
          </Group>
        )}
        {page.supportPhoneNumber && (
          <Group gap={8} wrap="nowrap">
            <PhoneIcon size={18} />
            <Anchor href={`tel:+${internationalDigits(page.supportPhoneNumber)}`} size="sm">
              {formatPhone(page.supportPhoneNumber)}
            </Anchor>
          </Group>
        )}
        {page.supportWhatsAppNumber && (
          <Group gap={8} wrap="nowrap">
            <ChatIcon size={18} />
            <Anchor
              href={`https://wa.me/${internationalDigits(page.supportWhatsAppNumber)}`}
              target="_blank"
              rel="noopener noreferrer"
              size="sm"
            >
              {t('institution.whatsapp', { number: formatPhone(page.supportWhatsAppNumber) })}
            </Anchor>
          </Group>
        )}
      </Stack>
    </Paper>
  );
}

/** Spec 2.1 /instituicao/{clinic}: the login branded with the clinic's custom page. */
export default function InstitutionLoginPage() {
  const { t } = useTranslation('auth');
  const { clinic = '' } = useParams();
  const page = useCustomLoginPage(clinic);
  usePageTitle(page.data?.name ?? t('login.pageTitle'));

  if (page.isPending) return <FullPageLoader />;
  if (page.isError && statusOf(page.error) === 404) return <NotFoundPage />;

  return (
    <Container size={440} px="sm" py="lg">
      <Stack gap="md">
        <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="lg">
          <Stack gap="lg">
            {page.data ? (
              <Stack gap={4}>
                <Branding page={page.data} />
                <Text size="sm" c="dimmed" ta="center">
                  {t('login.title')}
                </Text>
              </Stack>
            ) : (
              <>
                <Title order={1} size="h2">
                  {t('login.title')}
                </Title>
                <Alert color="yellow" variant="light" icon={<AlertIcon />}>
                  {t('institution.loadFailed')}
                </Alert>
              </>
            )}
            <LoginPanels customLogin={clinic} />
          </Stack>
        </Paper>
        {page.data && <SupportContacts page={page.data} />}
      </Stack>
    </Container>
  );
}
