import { Anchor, Button, Fieldset, NativeSelect, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { BRAZILIAN_STATES, type Language } from '@portal/shared/limits';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { api } from '../lib/api';
import { currentLanguage, LANGUAGES } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';
import { isAdmin, useCredentials } from '../lib/session';

function LanguageField({ value, onChange }: { value: Language; onChange: (l: Language) => void }) {
  const { t } = useTranslation();
  return (
    <NativeSelect
      label={t('fields.mailLanguage')}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value as Language)}
      data={LANGUAGES.map((l) => ({ value: l, label: t(`languages.${l}`) }))}
    />
  );
}

/**
 * Spec 2.2 `/admin/physician/invite`: invites a physician or a company user of an institution and,
 * for admins, another admin.
 */
export function PhysicianInvitePage() {
  const { t } = useTranslation();
  const admin = isAdmin(useCredentials()?.user);
  const [institutionId, setInstitutionId] = useState('');
  const [physician, setPhysician] = useState({ name: '', email: '', crm: '', uf: 'SP' });
  const [physicianLanguage, setPhysicianLanguage] = useState<Language>(currentLanguage());
  const [companyEmail, setCompanyEmail] = useState('');
  const [companyLanguage, setCompanyLanguage] = useState<Language>(currentLanguage());
  const invitePhysician = useMutation({
    mutationFn: () =>
      api('/api/administrationbe/physician/invite', {
        body: { ...physician, institutionId, language: physicianLanguage },
      }),
    onSuccess: () => {
      notifySuccess(t('invite.sent', { email: physician.email }));
      setPhysician({ name: '', email: '', crm: '', uf: physician.uf });
    },
    onError: notifyError,
  });
  const inviteCompany = useMutation({
    mutationFn: () =>
      api('/api/administrationbe/company/invite', {
        body: { email: companyEmail, institutionId, language: companyLanguage },
      }),
    onSuccess: () => {
      notifySuccess(t('invite.sent', { email: companyEmail }));
      setCompanyEmail('');
    },
    onError: notifyError,
  });
  const [adminInvite, setAdminInvite] = useState({ name: '', email: '' });
  const [adminLanguage, setAdminLanguage] = useState<Language>(currentLanguage());
  const inviteAdmin = useMutation({
    mutationFn: () => api('/api/administrationbe/admin/invite', { body: { ...adminInvite, language: adminLanguage } }),
    onSuccess: () => {
      notifySuccess(t('invite.sent', { email: adminInvite.email }));
      setAdminInvite({ name: '', email: '' });
    },
    onError: notifyError,
  });
  const submitAdmin = (event: FormEvent) => {
    event.preventDefault();
    inviteAdmin.mutate();
  };
  const set = (key: keyof typeof physician) => (e: { currentTarget: { value: string } }) =>
    setPhysician({ ...physician, [key]: e.currentTarget.value });
  const submitPhysician = (event: FormEvent) => {
    event.preventDefault();
    invitePhysician.mutate();
  };
  const submitCompany = (event: FormEvent) => {
    event.preventDefault();
    inviteCompany.mutate();
  };
  return (
    <Page title={t('invite.title')} actions={<InstitutionPicker value={institutionId} onChange={setInstitutionId} />}>
      <Text c="dimmed">{t('invite.intro')}</Text>
      <form onSubmit={submitPhysician}>
        <Fieldset legend={t('invite.physician')}>
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label={t('fields.name')} required value={physician.name} onChange={set('name')} />
              <TextInput
                label={t('fields.email')}
                type="email"
                required
                value={physician.email}
                onChange={set('email')}
              />
              <TextInput label={t('fields.crm')} required value={physician.crm} onChange={set('crm')} />
              <NativeSelect
                label={t('fields.uf')}
                value={physician.uf}
                onChange={set('uf')}
                data={[...BRAZILIAN_STATES]}
              />
              <LanguageField value={physicianLanguage} onChange={setPhysicianLanguage} />
            </SimpleGrid>
            <Button
              type="submit"
              w="fit-content"
              loading={invitePhysician.isPending}
              disabled={!institutionId || !physician.name || !physician.email || !physician.crm}
            >
              {t('invite.sendPhysician')}
            </Button>
          </Stack>
        </Fieldset>
      </form>
      <form onSubmit={submitCompany}>
        <Fieldset legend={t('invite.company')}>
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label={t('fields.email')}
                type="email"
                required
                value={companyEmail}
                onChange={(e) => setCompanyEmail(e.currentTarget.value)}
              />
              <LanguageField value={companyLanguage} onChange={setCompanyLanguage} />
            </SimpleGrid>
            <Button
              type="submit"
              w="fit-content"
              loading={inviteCompany.isPending}
              disabled={!institutionId || !companyEmail}
            >
              {t('invite.sendCompany')}
            </Button>
          </Stack>
        </Fieldset>
      </form>
      {admin ? (
        <form onSubmit={submitAdmin}>
          <Fieldset legend={t('invite.admin')}>
            <Stack>
              <Text size="sm" c="dimmed">
                {t('invite.adminHint')}
              </Text>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label={t('fields.name')}
                  required
                  value={adminInvite.name}
                  onChange={(e) => setAdminInvite({ ...adminInvite, name: e.currentTarget.value })}
                />
                <TextInput
                  label={t('fields.email')}
                  type="email"
                  required
                  value={adminInvite.email}
                  onChange={(e) => setAdminInvite({ ...adminInvite, email: e.currentTarget.value })}
                />
                <LanguageField value={adminLanguage} onChange={setAdminLanguage} />
              </SimpleGrid>
              <Button
                type="submit"
                w="fit-content"
                loading={inviteAdmin.isPending}
                disabled={!adminInvite.name.trim() || !adminInvite.email}
              >
                {t('invite.sendAdmin')}
              </Button>
            </Stack>
          </Fieldset>
        </form>
      ) : null}
      <Text size="sm" c="dimmed">
        {admin ? `${t('invite.externalHint')} ` : ''}
        <Anchor component={Link} to="/invitations">
          {t('invite.seeInvitations')}
        </Anchor>
      </Text>
    </Page>
  );
}
