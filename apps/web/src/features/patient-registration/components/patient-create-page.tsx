import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { ServerMessage } from '@portal/shared/errors';
import { TOAST_MS } from '@portal/shared/limits';
import { useEffect, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../../components/password-field';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ArrowLeftIcon, CheckIcon } from '../../../components/icons';
import { MaskedField } from '../../../components/masked-field';
import { PageCard } from '../../../components/page-card';
import { TermsAcceptance } from '../../../components/terms-acceptance';
import { FullPageLoader } from '../../../app/pages/loading-page';
import { errorText, serverMessageOf } from '../../../lib/errors';
import { currentLanguage } from '../../../lib/i18n';
import { MASK } from '../../../lib/masks';
import { notify } from '../../../lib/notify';
import { usePageTitle } from '../../../lib/use-page-title';
import { useCreatePatientMutation, usePatientInvitation } from '../api/patient-registration-api';
import { patientCreateSchema, type PatientCreateValues } from '../patient-create-schema';
import { AlreadyRegisteredModal } from './already-registered-modal';
import { ProtocolValidationBox } from './protocol-validation-box';

/** Spec 2.5 and 4.5: /patient/create?token&language&p, with or without an invitation. */
export default function PatientCreatePage() {
  const { t } = useTranslation(['account', 'common']);
  usePageTitle(t('patientCreate.title'));
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const invitation = usePatientInvitation(token);
  const mutation = useCreatePatientMutation();
  const [validatedProtocol, setValidatedProtocol] = useState<string | null>(null);
  const [alreadyRegistered, setAlreadyRegistered] = useState(false);
  const [created, setCreated] = useState<{ email: string; active: boolean; awaiting: boolean } | null>(null);

  const {
    control,
    register,
    handleSubmit,
    reset,
    formState: { errors, isValid, isSubmitting },
  } = useForm<PatientCreateValues>({
    resolver: zodResolver(patientCreateSchema),
    mode: 'onTouched',
    defaultValues: {
      fullName: '',
      cpf: '',
      phone: '',
      dateOfBirth: '',
      emailAddress: '',
      confirmEmailAddress: '',
      password: '',
      confirmPassword: '',
      protocolNumber: params.get('p') ?? '',
      protocolPassword: '',
      serviceTerms: false,
    },
  });
  const protocolNumber = useWatch({ control, name: 'protocolNumber' });
  const protocolPassword = useWatch({ control, name: 'protocolPassword' });

  // Spec 4.5: the box is valid only for the exact number and password that were checked.
  const protocolValid =
    validatedProtocol !== null && validatedProtocol === `${protocolNumber.trim()}\n${protocolPassword}`;

  // An invitation fixes the e-mail (and suggests the name).
  useEffect(() => {
    if (invitation.data) {
      reset((values) => ({
        ...values,
        fullName: values.fullName || invitation.data.name || '',
        emailAddress: invitation.data.email,
        confirmEmailAddress: invitation.data.email,
      }));
    }
  }, [invitation.data, reset]);

  useEffect(() => {
    if (token && invitation.isError) navigate('/login?activeSuccess=false', { replace: true });
  }, [invitation.isError, navigate, token]);

  if (token && !invitation.data) return <FullPageLoader />;
  const invited = Boolean(token && invitation.data);
  const fieldError = (message?: string) => (message ? t(message, { ns: 'common' }) : undefined);

  const onSubmit = async (values: PatientCreateValues) => {
    const hasProtocol = Boolean(values.protocolNumber.trim() || values.protocolPassword);
    if (hasProtocol && !protocolValid) {
      notify('warning', t('patientCreate.protocolNotValidated'), TOAST_MS.patientCreate);
      return;
    }
    try {
      const created = await mutation.mutateAsync({
        name: values.fullName.trim(),
        login: values.emailAddress.trim(),
        confirmEmailAddress: values.confirmEmailAddress.trim(),
        password: values.password,
        confirmPassword: values.confirmPassword,
        language: currentLanguage(),
        ...(invited ? { token } : {}),
        ...(hasProtocol ? { protocol: values.protocolNumber.trim(), protocolPassword: values.protocolPassword } : {}),
        dateOfBirth: values.dateOfBirth,
        ...(values.cpf ? { cpf: values.cpf } : {}),
        ...(values.phone ? { phone: values.phone } : {}),
        serviceTerms: values.serviceTerms,
      });
      // An account its institution holds (createAccountDefaultDisabled) cannot sign in yet: say so here.
      if (created.active && !created.awaitingInstitution) navigate('/login?activeSuccess=true');
      else setCreated({ email: created.email, active: created.active, awaiting: created.awaitingInstitution === true });
    } catch (error) {
      if (serverMessageOf(error).includes(ServerMessage.userAlreadyExists)) setAlreadyRegistered(true);
      else notify('error', errorText(error), TOAST_MS.patientCreate);
    }
  };

  const back = (
    <Anchor component={Link} to="/landing/" size="sm" w="fit-content">
      <Group gap={4} component="span">
        <ArrowLeftIcon size={16} />
        {t('common:actions.back')}
      </Group>
    </Anchor>
  );

  if (created) {
    return (
      <PageCard title={t('patientCreate.title')}>
        <Alert color="green" icon={<CheckIcon />} title={t('patientCreate.successTitle')} role="status">
          <Stack gap="xs">
            {!created.active && (
              <>
                <Text size="sm">{t('patientCreate.successText', { email: created.email })}</Text>
                <Text size="sm">{t('patientCreate.successDelay')}</Text>
              </>
            )}
            {created.awaiting && (
              <Text size="sm" data-testid="awaiting-institution">
                {t('patientCreate.awaitingInstitution')}
              </Text>
            )}
          </Stack>
        </Alert>
        <Button component={Link} to="/login" w="fit-content">
          {t('patientCreate.goToLogin')}
        </Button>
      </PageCard>
    );
  }

  return (
    <PageCard title={t('patientCreate.title')} width={640}>
      {back}
      <Text size="sm">{invited ? t('patientCreate.invitedIntro') : t('patientCreate.intro')}</Text>
      <form onSubmit={handleSubmit(onSubmit)} noValidate>
        <Stack gap="md">
          <TextInput
            label={t('patientCreate.fullName')}
            autoComplete="name"
            required
            error={fieldError(errors.fullName?.message)}
            {...register('fullName')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <MaskedField
              control={control}
              name="cpf"
              label={t('patientCreate.cpf')}
              mask={MASK.cpf}
              inputMode="numeric"
              placeholder="000.000.000-00"
              error={fieldError(errors.cpf?.message)}
            />
            <MaskedField
              control={control}
              name="dateOfBirth"
              label={t('patientCreate.dateOfBirth')}
              mask={MASK.date}
              inputMode="numeric"
              autoComplete="bday"
              placeholder={t('common:formats.datePlaceholder')}
              required
              error={fieldError(errors.dateOfBirth?.message)}
            />
          </SimpleGrid>
          <MaskedField
            control={control}
            name="phone"
            label={t('patientCreate.phone')}
            mask={MASK.phone}
            inputMode="tel"
            autoComplete="tel-national"
            placeholder="(00) 00000-0000"
            error={fieldError(errors.phone?.message)}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              label={t('patientCreate.email')}
              type="email"
              autoComplete="email"
              required
              readOnly={invited}
              error={fieldError(errors.emailAddress?.message)}
              {...register('emailAddress')}
            />
            <TextInput
              label={t('patientCreate.confirmEmail')}
              type="email"
              autoComplete="email"
              required
              readOnly={invited}
              error={fieldError(errors.confirmEmailAddress?.message)}
              {...register('confirmEmailAddress')}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <PasswordField
              label={t('patientCreate.password')}
              description={t('common:hints.passwordMin')}
              autoComplete="new-password"
              required
              error={fieldError(errors.password?.message)}
              {...register('password')}
            />
            <PasswordField
              label={t('patientCreate.confirmPassword')}
              autoComplete="new-password"
              required
              error={fieldError(errors.confirmPassword?.message)}
              {...register('confirmPassword')}
            />
          </SimpleGrid>
          <ProtocolValidationBox
            register={register}
            protocolNumber={protocolNumber}
            protocolPassword={protocolPassword}
            valid={protocolValid}
            onValidated={() => setValidatedProtocol(`${protocolNumber.trim()}\n${protocolPassword}`)}
          />
          <Controller
            control={control}
            name="serviceTerms"
            render={({ field }) => (
              <TermsAcceptance
                userType="PATIENT"
                checked={field.value}
                onChange={(checked) => {
                  field.onChange(checked);
                  field.onBlur();
                }}
                error={fieldError(errors.serviceTerms?.message)}
              />
            )}
          />
          <Button
            type="submit"
            size="md"
            disabled={!isValid}
            loading={isSubmitting}
            data-testid="patient-create-submit"
          >
            {t('patientCreate.submit')}
          </Button>
        </Stack>
      </form>
      <AlreadyRegisteredModal opened={alreadyRegistered} onClose={() => setAlreadyRegistered(false)} />
    </PageCard>
  );
}
