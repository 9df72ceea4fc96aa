import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Fieldset,
  FileButton,
  Group,
  Image,
  NativeSelect,
  Paper,
  PasswordInput,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useFieldArray, useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import type { InstitutionView } from '@portal/shared/schemas/institution';
import { ConfirmButton } from '../components/confirm';
import { Page } from '../components/page';
import { api } from '../lib/api';
import { notifyError, notifySuccess } from '../lib/notify';
import { isAdmin, useCredentials } from '../lib/session';
import { HoldRulesEditor } from './hold-rules-editor';
import { emptyInstitutionForm, formOf, type InstitutionForm, toPayload, zInstitutionForm } from './institution-form';

/** The key of an institution just created, handed from the creation screen to its edit screen. */
let handedOver: { id: string; key: string } | null = null;

/** The API key, shown once with a copy button: the portal keeps only its hash. */
function ApiKeyNotice({ apiKey }: { apiKey: string }) {
  const { t } = useTranslation();
  return (
    <Alert color="green" title={t('institution.keyTitle')} role="status">
      <Stack gap="xs">
        <Text size="sm">{t('institution.keyOnce')}</Text>
        <Code block data-testid="api-key">
          {apiKey}
        </Code>
        <CopyButton value={apiKey}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy} w="fit-content">
              {copied ? t('common.copied') : t('common.copy')}
            </Button>
          )}
        </CopyButton>
      </Stack>
    </Alert>
  );
}

/** Spec 2.4: what the branded login page shows (logo for view type 1, the name as heading for 2). */
function LoginPreview({ form }: { form: InstitutionForm }) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="md" aria-label={t('institution.preview')} component="section">
      <Text size="sm" c="dimmed" mb="xs">
        {t('institution.preview')}
      </Text>
      {form.viewType === '1' && form.logoPath ? (
        <Image src={form.logoPath} alt={form.name} h={64} w="auto" fit="contain" />
      ) : (
        <Title order={3}>{form.name || '—'}</Title>
      )}
      <Text size="sm" mt="xs">
        {t('institution.previewText')}
      </Text>
      {form.supportEmail || form.supportPhoneNumber ? (
        <Text size="xs" c="dimmed" mt="xs">
          {[form.supportEmail, form.supportPhoneNumber, form.supportWhatsAppNumber].filter(Boolean).join(' · ')}
        </Text>
      ) : null}
      {form.code ? (
        <Anchor href={`/instituicao/${form.code.toLowerCase()}`} target="_blank" size="sm">
          {t('institution.openLogin')}
        </Anchor>
      ) : null}
    </Paper>
  );
}

/** One screen per institution: going from one to another starts a fresh form. */
export function InstitutionEditPage() {
  const { id } = useParams();
  return <InstitutionEditScreen key={id ?? 'new'} id={id} />;
}

function InstitutionEditScreen({ id }: { id: string | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const admin = isAdmin(useCredentials()?.user);
  const [shown, setShown] = useState<{ id: string; key: string } | null>(() => handedOver);
  const creating = !id;
  const { data: view, error } = useQuery({
    queryKey: ['institution', id],
    queryFn: () => api<InstitutionView>(`/api/administrationbe/institution/${id}`),
    enabled: !creating,
  });
  const form = useForm<InstitutionForm>({
    resolver: zodResolver(zInstitutionForm),
    defaultValues: emptyInstitutionForm,
  });
  const visualizer = useFieldArray({ control: form.control, name: 'visualizerSettings' });
  // The form is filled once, when the institution arrives (before it is painted), its fields
  // disabled until then: a later read (the window regaining focus, a list changing) never
  // overwrites what is being typed.
  const filled = useRef(false);
  useLayoutEffect(() => {
    if (view && !filled.current) {
      filled.current = true;
      form.reset(formOf(view));
    }
  }, [view, form]);
  const loading = !creating && !view;
  // Forget the key of a creation once this screen has it: a reload does not show it again.
  useEffect(() => {
    handedOver = null;
  }, []);

  const save = useMutation({
    mutationFn: (values: InstitutionForm): Promise<{ id: string; apiKey?: string } & Partial<InstitutionView>> => {
      const body = toPayload(values, Boolean(view?.settings.smart));
      if (creating) {
        return api<{ id: string; apiKey: string }>('/api/administrationbe/institution', { body });
      }
      // A company user's code field is read-only: it goes back unchanged, which the server accepts.
      return api<InstitutionView>(`/api/administrationbe/institution/${id}`, { method: 'PUT', body });
    },
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: ['institutions'] });
      notifySuccess(t('common.saved'));
      if (creating) {
        if (result.apiKey) handedOver = { id: result.id, key: result.apiKey };
        setShown(handedOver);
        void navigate(`/institution/edit/${result.id}`, { replace: true });
      } else {
        // What the server keeps (HL7 facilities in capitals, for instance) is what the form shows now.
        if (result.code) form.reset(formOf(result as InstitutionView));
        void queryClient.invalidateQueries({ queryKey: ['institution', id] });
      }
    },
    onError: notifyError,
  });
  const rotate = useMutation({
    mutationFn: () =>
      api<InstitutionView>(`/api/administrationbe/institution/${id}`, { method: 'PUT', body: { rotateApiKey: true } }),
    onSuccess: (result) => setShown(result.apiKey && id ? { id, key: result.apiKey } : null),
    onError: notifyError,
  });
  const shownKey = shown && shown.id === id ? shown.key : null;

  const values = useWatch({ control: form.control }) as InstitutionForm;
  const err = (name: keyof InstitutionForm) => {
    const message = form.formState.errors[name]?.message;
    return message ? t(`validation.${message}`) : undefined;
  };
  if (error) return <Page title={t('institution.title')}>{t('errors.notFound')}</Page>;

  const readLogo = (file: File | undefined) => {
    if (!file) return;
    if (file.size > 190 * 1024) {
      notifyError(new Error('too large'));
      return;
    }
    const reader = new FileReader();
    reader.onload = () => form.setValue('logoPath', String(reader.result), { shouldDirty: true });
    reader.readAsDataURL(file);
  };

  return (
    <Page title={creating ? t('institution.newTitle') : `${t('institution.title')}: ${view?.name ?? ''}`}>
      {shownKey ? <ApiKeyNotice apiKey={shownKey} /> : null}
      <form onSubmit={form.handleSubmit((v) => save.mutate(v))} noValidate aria-busy={loading}>
        <Fieldset variant="unstyled" disabled={loading}>
          <Stack gap="lg">
            <Fieldset legend={t('institution.identity')}>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label={t('fields.name')} required {...form.register('name')} error={err('name')} />
                <TextInput
                  label={t('fields.code')}
                  required
                  description={admin ? t('institution.codeHelp') : t('institution.codeAdminOnly')}
                  readOnly={!admin}
                  {...form.register('code')}
                  error={err('code')}
                />
                <NativeSelect
                  label={t('fields.viewType')}
                  data={[
                    { value: '1', label: t('institution.viewType1') },
                    { value: '2', label: t('institution.viewType2') },
                  ]}
                  {...form.register('viewType')}
                />
                <Stack gap={4}>
                  <TextInput
                    label={t('fields.logo')}
                    description={t('institution.logoHelp')}
                    {...form.register('logoPath')}
                  />
                  {/* Mantine's file button: the browser's own file input speaks the browser's language, not the console's. */}
                  <FileButton
                    onChange={(file) => readLogo(file ?? undefined)}
                    accept="image/png,image/jpeg,image/svg+xml"
                  >
                    {(props) => (
                      <Button {...props} variant="light" size="xs" w="fit-content">
                        {t('institution.logoFile')}
                      </Button>
                    )}
                  </FileButton>
                </Stack>
              </SimpleGrid>
            </Fieldset>

            <Fieldset legend={t('institution.support')}>
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <TextInput
                  label={t('fields.supportEmail')}
                  type="email"
                  {...form.register('supportEmail')}
                  error={err('supportEmail')}
                />
                <TextInput label={t('fields.supportPhone')} type="tel" {...form.register('supportPhoneNumber')} />
                <TextInput label={t('fields.supportWhatsApp')} type="tel" {...form.register('supportWhatsAppNumber')} />
              </SimpleGrid>
            </Fieldset>

            <Fieldset legend={t('institution.behaviour')}>
              <Stack>
                <Switch label={t('institution.shareEnabled')} {...form.register('shareEnabled')} />
                <Switch
                  label={t('institution.createAccountDefaultDisabled')}
                  description={t('institution.createAccountDefaultDisabledHelp')}
                  {...form.register('createAccountDefaultDisabled')}
                />
                <Switch
                  label={t('institution.autoInvitePatients')}
                  description={t('institution.autoInvitePatientsHelp')}
                  {...form.register('autoInvitePatients')}
                />
                <Switch
                  label={t('institution.accessLogStaffNames')}
                  description={t('institution.accessLogStaffNamesHelp')}
                  {...form.register('accessLogStaffNames')}
                />
                <Switch label={t('institution.statusVisualizer')} {...form.register('hasExamStatusVisualizer')} />
                <NativeSelect
                  label={t('institution.emailFrequency')}
                  w={320}
                  maw="100%"
                  data={(['EXAM', 'DAY', 'WEEK', 'DISABLED'] as const).map((v) => ({
                    value: v,
                    label: t(`institution.frequency.${v}`),
                  }))}
                  {...form.register('emailFrequencyDefault')}
                />
              </Stack>
            </Fieldset>

            <Fieldset legend={t('institution.visualizer')}>
              <Stack gap="xs">
                <Text size="sm" c="dimmed">
                  {t('institution.visualizerHelp')}
                </Text>
                {visualizer.fields.map((field, index) => (
                  <Group key={field.id} align="flex-end" wrap="wrap">
                    <TextInput
                      label={t('institution.examType')}
                      {...form.register(`visualizerSettings.${index}.examTypeCode`)}
                      error={
                        form.formState.errors.visualizerSettings?.[index]?.examTypeCode
                          ? t('validation.required')
                          : undefined
                      }
                    />
                    <Checkbox
                      label={t('institution.hideImage')}
                      {...form.register(`visualizerSettings.${index}.hideButton`)}
                    />
                    <Checkbox
                      label={t('institution.typeEnabled')}
                      {...form.register(`visualizerSettings.${index}.enable`)}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t('institution.removeType', {
                        type: values.visualizerSettings[index]?.examTypeCode ?? '',
                      })}
                      onClick={() => visualizer.remove(index)}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                ))}
                <Button
                  variant="light"
                  size="xs"
                  w="fit-content"
                  onClick={() => visualizer.append({ examTypeCode: '', hideButton: false, enable: true })}
                >
                  {t('institution.addType')}
                </Button>
              </Stack>
            </Fieldset>

            <Fieldset legend={t('institution.notice')}>
              <Text size="sm" c="dimmed" mb="xs">
                {t('institution.noticeHelp')}
              </Text>
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <Textarea label={t('institution.noticePtBr')} autosize minRows={3} {...form.register('noticePtBr')} />
                <Textarea label={t('institution.noticeEs')} autosize minRows={3} {...form.register('noticeEs')} />
                <Textarea label={t('institution.noticeEn')} autosize minRows={3} {...form.register('noticeEn')} />
              </SimpleGrid>
            </Fieldset>

            <Fieldset legend={t('institution.smart')}>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput
                  label={t('institution.smartUrl')}
                  type="url"
                  {...form.register('smartUrl')}
                  error={err('smartUrl')}
                />
                <PasswordInput
                  label={t('institution.smartSecret')}
                  description={view?.settings.smart ? t('institution.smartSecretKept') : undefined}
                  autoComplete="new-password"
                  {...form.register('smartSecret')}
                />
              </SimpleGrid>
            </Fieldset>

            <Fieldset legend={t('institution.hl7')}>
              <Textarea
                label={t('institution.hl7Facilities')}
                description={t('institution.hl7Help')}
                autosize
                minRows={2}
                {...form.register('hl7Facilities')}
              />
            </Fieldset>

            <LoginPreview form={values} />

            <Group>
              <Button type="submit" loading={save.isPending}>
                {creating ? t('institution.create') : t('common.save')}
              </Button>
              {!creating ? (
                <ConfirmButton
                  label={t('institution.rotate')}
                  title={t('institution.rotateTitle')}
                  description={t('institution.rotateText')}
                  confirmLabel={t('institution.rotateConfirm')}
                  onConfirm={() => rotate.mutateAsync()}
                  size="sm"
                />
              ) : null}
            </Group>
          </Stack>
        </Fieldset>
      </form>
      {!creating && id ? <HoldRulesEditor institutionId={id} /> : null}
    </Page>
  );
}
