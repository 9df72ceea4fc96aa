import { AppShell, Burger, Button, Group, NativeSelect, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { type ReactElement, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, Outlet, useLocation } from 'react-router';
import type { Language } from '@portal/shared/limits';
import { api } from '../lib/api';
import { changeLanguage, currentLanguage, LANGUAGES } from '../lib/i18n';
import { clearCredentials, isAdmin, useCredentials } from '../lib/session';

function LanguageSelect() {
  const { t, i18n } = useTranslation();
  return (
    <NativeSelect
      aria-label={t('layout.language')}
      size="xs"
      value={currentLanguage()}
      onChange={(event) => void changeLanguage(event.currentTarget.value as Language)}
      data={LANGUAGES.map((l) => ({ value: l, label: t(`languages.${l}`) }))}
      key={i18n.language}
    />
  );
}

/** The console's frame: header, sidebar (spec 2.6) and the page; signed-out visitors go to the sign-in. */
export function ConsoleLayout() {
  const { t } = useTranslation();
  const credentials = useCredentials();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [opened, { toggle, close }] = useDisclosure(false);
  useEffect(close, [location.pathname, close]);
  if (!credentials) return <Navigate to="/login" replace />;
  const { user } = credentials;
  const admin = isAdmin(user);
  // Spec 2.6: the registration items (institutions, tags) are for admins; company users edit their own institution.
  const links: Array<{ to: string; label: string }> = [
    { to: '/dashboard', label: t('nav.dashboard') },
    ...(admin
      ? [
          { to: '/institution/list', label: t('nav.institutions') },
          { to: '/tags/list', label: t('nav.tags') },
        ]
      : [{ to: `/institution/edit/${user.adminInstitutionID ?? ''}`, label: t('nav.ownInstitution') }]),
    { to: '/people', label: t('nav.people') },
    { to: '/physician/invite', label: t('nav.invite') },
    { to: '/invitations', label: t('nav.invitations') },
    { to: '/protocol/cancel', label: t('nav.protocols') },
    { to: '/reports', label: t('nav.audit') },
    { to: '/ingest-calls', label: t('nav.ingest') },
    // Company users see their institution's messages there.
    { to: '/outbox', label: t('nav.outbox') },
  ];
  const signOut = () => {
    api('/api/v2/auth/logout', { method: 'POST', body: {} }).catch(() => undefined);
    clearCredentials();
    queryClient.clear();
  };
  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
      // The sidebar appears at once: its slide let the page scroll sideways while it moved.
      transitionDuration={0}
    >
      <a className="skip-link" href="#main">
        {t('layout.skip')}
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('layout.menu')} />
            <Title order={1} size="h4">
              {t('layout.title')}
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="sm" c="dimmed">
              {user.username}
            </Text>
            <Group visibleFrom="sm">
              <LanguageSelect />
            </Group>
            <Button variant="subtle" size="xs" onClick={signOut}>
              {t('layout.signOut')}
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label={t('layout.sidebar')}>
        <nav aria-label={t('layout.sidebar')}>
          {links.map((link) => (
            <NavLink
              key={link.to}
              component={Link}
              to={link.to}
              label={link.label}
              active={location.pathname.startsWith(link.to.split('/').slice(0, 2).join('/'))}
            />
          ))}
        </nav>
        <Group hiddenFrom="sm" p="sm">
          <LanguageSelect />
        </Group>
      </AppShell.Navbar>
      <AppShell.Main id="main">
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

/** Screens for the portal's administrators only (spec 2.6): company users are sent to the dashboard. */
export function RequireAdmin({ element }: { element: ReactElement }) {
  const credentials = useCredentials();
  return isAdmin(credentials?.user) ? element : <Navigate to="/dashboard" replace />;
}
