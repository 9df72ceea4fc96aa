import { ActionIcon, Anchor, Box, Button, Container, Group, Menu, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Logo } from '../../components/logo';
import { ChevronDownIcon, LogoutIcon, UserIcon } from '../../components/icons';
import { logout } from '../../lib/logout';
import { firstName } from '../../lib/person-name';
import { accountEditPath, useCredentials } from '../../lib/session';
import { LanguageMenu } from './language-menu';

export function Header() {
  const { t } = useTranslation();
  const credentials = useCredentials();
  const user = credentials?.user ?? null;
  const editPath = accountEditPath(user);
  const fullName = user?.name?.trim() || '';
  const given = firstName(fullName);
  // Greets by first name; an account without a name shows its user name (never a masked CPF).
  const accountLabel = given ? t('header.greeting', { name: given }) : user?.username || '';

  return (
    // A phone (up to 40em) shows the logo's mark alone and the account button without its name: by
    // CSS (global.css), so the page drawn at build time and the app's first render look the same.
    <Box
      component="header"
      className="app-header"
      bg="white"
      style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}
    >
      <Container size="lg" py={8}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Anchor
            component={Link}
            to={credentials ? '/landing/' : '/login'}
            underline="never"
            // The accessible name starts with the visible name (WCAG 2.5.3); the phone shows the mark alone.
            aria-label={t('header.homeOf', { name: t('app.name') })}
          >
            <Logo />
          </Anchor>
          <Group gap={4} wrap="nowrap">
            <LanguageMenu />
            {credentials && editPath && (
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <Button
                    variant="subtle"
                    color="dark"
                    px={8}
                    leftSection={<UserIcon />}
                    rightSection={<ChevronDownIcon size={16} />}
                    aria-label={t('header.myAccountOf', { name: accountLabel })}
                  >
                    <Text className="app-header-wide" size="sm" truncate maw={180}>
                      {accountLabel}
                    </Text>
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>{fullName || user?.username}</Menu.Label>
                  <Menu.Item component={Link} to={editPath}>
                    {t('header.myAccount')}
                  </Menu.Item>
                  {user?.isUserType && (
                    <Menu.Item component={Link} to="/patient/accesses">
                      {t('header.accesses')}
                    </Menu.Item>
                  )}
                </Menu.Dropdown>
              </Menu>
            )}
            {credentials && (
              <Tooltip label={t('header.logout')}>
                <ActionIcon
                  variant="subtle"
                  color="dark"
                  size="lg"
                  aria-label={t('header.logout')}
                  onClick={() => logout()}
                >
                  <LogoutIcon />
                </ActionIcon>
              </Tooltip>
            )}
          </Group>
        </Group>
      </Container>
    </Box>
  );
}
