import { Badge, Button, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '@portal/shared/limits';
import type { Tag, TagUser } from '@portal/shared/schemas/accounts';
import { ConfirmButton } from '../components/confirm';
import { DataTable } from '../components/data-table';
import { InstitutionPicker } from '../components/institution-picker';
import { Page } from '../components/page';
import { api } from '../lib/api';
import { errorKey } from '../lib/errors';
import { currentLanguage, LANGUAGES } from '../lib/i18n';
import { notifyError, notifySuccess } from '../lib/notify';

const base = (institutionId: string) => `/api/administrationbe/institution/${institutionId}/tags`;

/** The people of one tag: external users (with their invitation state) and physicians. */
function TagUsers({ institutionId, tag }: { institutionId: string; tag: Tag }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const key = ['tagUsers', tag.id];
  const { data } = useQuery({ queryKey: key, queryFn: () => api<TagUser[]>(`${base(institutionId)}/${tag.id}/users`) });
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [language, setLanguage] = useState<Language>(currentLanguage());
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const add = useMutation({
    mutationFn: (body: { name: string; email: string; language: string }) =>
      api<TagUser>(`${base(institutionId)}/${tag.id}/users`, { body }),
    onSuccess: () => {
      notifySuccess(t('tags.invited'));
      setName('');
      setEmail('');
      void refresh();
    },
    onError: notifyError,
  });
  const remove = (user: TagUser) =>
    api(`${base(institutionId)}/${tag.id}/users/${user.id}`, { method: 'DELETE' }).then(refresh, notifyError);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ name: name.trim(), email: email.trim(), language });
  };
  return (
    <Stack gap="sm" mt="sm">
      <DataTable<TagUser>
        caption={t('tags.usersOf', { tag: tag.tag })}
        rows={data ?? []}
        rowKey={(u) => u.id}
        columns={[
          { label: t('fields.name'), cell: (u) => u.name },
          { label: t('fields.email'), cell: (u) => u.email },
          {
            label: t('fields.state'),
            cell: (u) =>
              u.active ? (
                <Badge color="green" variant="light">
                  {t('states.ACTIVE')}
                </Badge>
              ) : (
                <Badge color="yellow" variant="light">
                  {t('tags.invitationPending')}
                </Badge>
              ),
          },
          {
            label: t('common.actions'),
            cell: (u) => (
              <Group gap="xs">
                {!u.active && u.type === 'EXTERNAL' ? (
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() => add.mutate({ name: u.name, email: u.email, language: currentLanguage() })}
                  >
                    {t('tags.resend')}
                  </Button>
                ) : null}
                <ConfirmButton
                  label={t('common.remove')}
                  title={t('tags.removeUserTitle')}
                  description={t('tags.removeUserText', { name: u.name, tag: tag.tag })}
                  confirmLabel={t('common.remove')}
                  onConfirm={() => remove(u)}
                />
              </Group>
            ),
          },
        ]}
      />
      <form onSubmit={submit} aria-label={t('tags.addUser')}>
        <Group align="flex-end" wrap="wrap">
          <TextInput label={t('fields.name')} required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <TextInput
            label={t('fields.email')}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <NativeSelect
            label={t('fields.language')}
            value={language}
            onChange={(e) => setLanguage(e.currentTarget.value as Language)}
            data={LANGUAGES.map((l) => ({ value: l, label: t(`languages.${l}`) }))}
          />
          <Button type="submit" loading={add.isPending} disabled={!name.trim() || !email.trim()}>
            {t('tags.addUser')}
          </Button>
        </Group>
      </form>
    </Stack>
  );
}

function TagCard({ institutionId, tag }: { institutionId: string; tag: Tag }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tags', institutionId] });
  const rename = useMutation({
    mutationFn: (text: string) => api<Tag>(`${base(institutionId)}/${tag.id}`, { method: 'PUT', body: { tag: text } }),
    onSuccess: () => {
      setRenaming(null);
      void refresh();
    },
    onError: notifyError,
  });
  const [refusal, setRefusal] = useState<string | null>(null);
  const remove = () =>
    api(`${base(institutionId)}/${tag.id}`, { method: 'DELETE' }).then(
      () => refresh(),
      (error: unknown) => {
        setRefusal(t(errorKey(error)));
        notifyError(error);
      },
    );
  return (
    <Paper withBorder p="md" component="section" aria-label={tag.tag}>
      <Group justify="space-between" wrap="wrap">
        {renaming === null ? (
          <Title order={3} size="h4">
            {tag.tag}
          </Title>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate(renaming.trim());
            }}
          >
            <Group align="flex-end">
              <TextInput
                label={t('tags.newName')}
                value={renaming}
                onChange={(e) => setRenaming(e.currentTarget.value)}
                required
              />
              <Button type="submit" size="xs" loading={rename.isPending}>
                {t('common.save')}
              </Button>
              <Button size="xs" variant="default" onClick={() => setRenaming(null)}>
                {t('common.cancel')}
              </Button>
            </Group>
          </form>
        )}
        <Group gap="xs">
          <Button size="xs" variant="light" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? t('tags.hideUsers') : t('tags.showUsers')}
          </Button>
          <Button size="xs" variant="light" onClick={() => setRenaming(tag.tag)}>
            {t('tags.rename')}
          </Button>
          <ConfirmButton
            label={t('common.delete')}
            title={t('tags.deleteTitle')}
            description={t('tags.deleteText', { tag: tag.tag })}
            confirmLabel={t('common.delete')}
            onConfirm={remove}
          />
        </Group>
      </Group>
      {refusal ? (
        <Text c="red" size="sm" role="alert">
          {refusal}
        </Text>
      ) : null}
      {open ? <TagUsers institutionId={institutionId} tag={tag} /> : null}
    </Paper>
  );
}

/** Spec 2.6: tags of an institution and their users (external users and physicians). */
export function TagsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [institutionId, setInstitutionId] = useState('');
  const [text, setText] = useState('');
  const { data } = useQuery({
    queryKey: ['tags', institutionId],
    queryFn: () => api<Tag[]>(base(institutionId)),
    enabled: Boolean(institutionId),
  });
  const create = useMutation({
    mutationFn: () => api<Tag>(base(institutionId), { body: { tag: text.trim() } }),
    onSuccess: () => {
      setText('');
      notifySuccess(t('common.saved'));
      void queryClient.invalidateQueries({ queryKey: ['tags', institutionId] });
    },
    onError: notifyError,
  });
  return (
    <Page title={t('tags.title')} actions={<InstitutionPicker value={institutionId} onChange={setInstitutionId} />}>
      {institutionId ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Group align="flex-end">
            <TextInput
              label={t('tags.newTag')}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              required
            />
            <Button type="submit" loading={create.isPending} disabled={!text.trim()}>
              {t('tags.create')}
            </Button>
          </Group>
        </form>
      ) : null}
      {data && data.length === 0 ? <Text c="dimmed">{t('tags.none')}</Text> : null}
      <Stack>
        {(data ?? []).map((tag) => (
          <TagCard key={tag.id} institutionId={institutionId} tag={tag} />
        ))}
      </Stack>
    </Page>
  );
}
