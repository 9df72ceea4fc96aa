import { Alert, Anchor, Button, Container, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertIcon, InfoIcon } from '../../../components/icons';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { studyPath } from '../../../components/dicom-images';
import { ExamTable } from '../../../components/exam-table';
import { ReadFilter, type ReadFilterValue, SearchBox } from '../../../components/list-controls';
import { type Exam, useProtocolDetail, useProtocolList } from '../../../components/results-api';
import { useResourceOpener } from '../../../components/resource-viewer';
import { formatCalendarDate, formatDateTimeInWords } from '../../../lib/dates';
import { errorText } from '../../../lib/errors';
import { usePageTitle } from '../../../lib/use-page-title';
import { InstitutionNotice } from './institution-notice';
import { SignatureModal } from './signature-modal';
import { examDisplay } from '../../../components/exam-display';
import { formatPhone } from '../../../lib/mask-format';
import { currentLanguage } from '../../../lib/i18n';
import { useCredentials } from '../../../lib/session';

export type DetailVariant = 'patient' | 'physician' | 'protocol' | 'external';

const DASHBOARD_OF: Record<DetailVariant, string> = {
  patient: '/dashboard/patient/protocols',
  physician: '/dashboard/physician/protocols',
  external: '/dashboard/external/exams',
  protocol: '/dashboard/protocols/uniquelogin',
};

const fold = (text: string | null | undefined) =>
  (text ?? '')
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();

function Field({ label, value }: { label: string; value: string | null | undefined }) {
  const { t } = useTranslation('results');
  return (
    <div>
      <Text size="xs" c="dimmed" component="dt">
        {label}
      </Text>
      <Text size="sm" fw={600} component="dd" m={0} style={{ wordBreak: 'break-word' }}>
        {value || t('list.notInformed')}
      </Text>
    </div>
  );
}

/** The first protocol of a guest session, when the link names none (spec 2.3: /viewprotocol). */
function useGuestProtocolId(enabled: boolean): { id: string | null; pending: boolean } {
  const list = useProtocolList('dashboard', { page: 1, size: 1 }, enabled);
  return { id: list.data?.items[0]?.requestId ?? null, pending: enabled && list.isPending };
}

/** Spec 2.8: one protocol with its exams, for each kind of viewer. */
export default function ProtocolDetailPage({ variant }: { variant: DetailVariant }) {
  const { t } = useTranslation(['results', 'common']);
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const credentials = useCredentials();
  // Someone the patient shared results with: told whose they are, never offered the account.
  const shared = credentials?.user?.role === 'SHARE';
  const sharedUntil = shared ? formatDateTimeInWords(credentials?.user?.shareExpiresAt, currentLanguage()) : null;
  const fromDashboard = Boolean((location.state as { fromDashboard?: boolean } | null)?.fromDashboard);
  const requested = params.get('id');
  const guest = useGuestProtocolId(variant === 'protocol' && !requested);
  const id = requested ?? guest.id;
  const detail = useProtocolDetail(id);
  const opener = useResourceOpener();
  const [search, setSearch] = useState('');
  const [read, setRead] = useState<ReadFilterValue>('all');
  const [requester, setRequester] = useState<string | null>(null);
  const [signatureHelp, setSignatureHelp] = useState(false);
  const protocol = detail.data;
  usePageTitle(protocol ? t('results:detail.title', { number: protocol.number }) : t('results:detail.titleShort'));
  const filterable = variant === 'physician' || variant === 'external';
  const onSearch = useCallback((text: string) => setSearch(text), []);

  const exams = useMemo(() => {
    const all = protocol?.exams ?? [];
    return all.filter((exam) => {
      if (requester !== null && (exam.requesterName ?? '') !== requester) return false;
      if (!filterable) return true;
      if (read === 'read' && !exam.examRead) return false;
      if (read === 'unread' && exam.examRead) return false;
      const needle = fold(search);
      return (
        !needle ||
        [exam.description, exam.modalityName, exam.requesterName].some((field) => fold(field).includes(needle))
      );
    });
  }, [protocol, requester, filterable, read, search]);
  const requesters = useMemo(
    () => [...new Set((protocol?.exams ?? []).map((e) => e.requesterName).filter((n): n is string => Boolean(n)))],
    [protocol],
  );

  if (guest.pending || (id && detail.isPending)) {
    return (
      <Container size="xl" py="xl">
        <Loader aria-label={t('common:loading.text')} />
      </Container>
    );
  }
  if (!id || detail.isError || !protocol) {
    return (
      <Container size="md" py="xl">
        <Stack>
          <Title order={1} size="h2">
            {t('results:detail.titleShort')}
          </Title>
          <Alert color={detail.isError ? 'red' : 'yellow'} icon={<AlertIcon />} role="alert">
            {detail.isError ? errorText(detail.error) : t('results:detail.notFound')}
          </Alert>
        </Stack>
      </Container>
    );
  }

  const target = (exam: Exam) => ({ requestId: protocol.requestId, examIds: [exam.id], title: exam.description });
  const firstReport = protocol.exams?.find((e) => e.identifierReport && e.rectificationStatus !== 'PENDING');
  // The merged file holds the reports that are not withheld; those are the exams it marks read.
  const printableIds = (protocol.exams ?? [])
    .filter((e) => e.identifierReport && e.rectificationStatus?.toUpperCase() !== 'PENDING')
    .map((e) => e.id);
  const patient = protocol.patient;

  return (
    <Container size="lg" px="sm" py="lg">
      <Stack gap="md">
        {fromDashboard && (
          <Anchor component={Link} to={DASHBOARD_OF[variant]} size="sm">
            ← {t('results:detail.back')}
          </Anchor>
        )}
        {shared && (
          <Alert color="medical" icon={<InfoIcon />} data-testid="shared-banner">
            {sharedUntil
              ? t('results:detail.sharedWithYouUntil', {
                  name: patient.name,
                  number: protocol.number,
                  until: sharedUntil,
                })
              : t('results:detail.sharedWithYou', { name: patient.name, number: protocol.number })}
          </Alert>
        )}
        {/* A share's recipient is never invited into the patient's account. */}
        {variant === 'protocol' && !fromDashboard && !shared && (
          <Alert color={protocol.hasPatientUser ? 'gray' : 'blue'} data-testid="account-banner">
            {protocol.hasPatientUser ? (
              <Group gap="xs">
                <Text size="sm">{t('results:detail.hasAccount')}</Text>
                <Anchor component={Link} to="/login" size="sm">
                  {t('results:detail.login')}
                </Anchor>
              </Group>
            ) : (
              <Group gap="xs">
                <Text size="sm">{t('results:detail.createAccountText')}</Text>
                <Anchor component={Link} to={`/patient/create?p=${encodeURIComponent(protocol.number)}`} size="sm">
                  {t('results:detail.createAccount')}
                </Anchor>
              </Group>
            )}
          </Alert>
        )}
        <Title order={1} size="h2">
          {t('results:detail.title', { number: protocol.number })}
        </Title>
        {variant === 'patient' && (
          <Anchor
            component={Link}
            to={`/patient/accesses?protocol=${encodeURIComponent(protocol.requestId)}`}
            size="sm"
          >
            {t('results:detail.accesses')}
          </Anchor>
        )}
        <InstitutionNotice notice={protocol.institutionNotice} />
        <Paper withBorder p="md" radius="md">
          <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="sm" component="dl" m={0}>
            <Field label={t('results:detail.number')} value={protocol.number} />
            <Field label={t('results:detail.institution')} value={protocol.institution.name} />
            <Field label={t('results:detail.patient')} value={patient.name} />
            <Field label={t('results:detail.birthDate')} value={formatCalendarDate(patient.birthDate)} />
            <Field
              label={t('results:detail.sex')}
              value={
                patient.gender
                  ? t(`results:detail.gender.${patient.gender.toUpperCase()}`, { defaultValue: patient.gender })
                  : null
              }
            />
            <Field
              label={t('results:detail.phone')}
              value={patient.phone ? formatPhone(patient.phone) : patient.phone}
            />
            <Field label={t('results:detail.email')} value={patient.email} />
          </SimpleGrid>
        </Paper>
        <Group gap="sm" wrap="wrap" align="flex-end">
          {filterable && (
            <>
              <SearchBox onSearch={onSearch} placeholder={t('results:detail.searchPlaceholder')} />
              <ReadFilter value={read} onChange={setRead} />
            </>
          )}
          {protocol.showAllButton && firstReport?.identifierReport && (
            <Button
              variant="light"
              loading={opener.busy === `report:${firstReport.identifierReport}:true`}
              onClick={() =>
                void opener.open(
                  'report',
                  firstReport.identifierReport ?? '',
                  { requestId: protocol.requestId, examIds: printableIds, title: t('results:detail.allReports') },
                  true,
                )
              }
            >
              {t('results:detail.showAll')}
            </Button>
          )}
          <Button variant="subtle" onClick={() => setSignatureHelp(true)}>
            {t('results:detail.verifySignature')}
          </Button>
        </Group>
        {requesters.length > 1 && (
          <Group gap="xs" wrap="wrap" role="group" aria-label={t('results:detail.byRequester')}>
            <Button
              size="compact-sm"
              variant={requester === null ? 'filled' : 'default'}
              aria-pressed={requester === null}
              onClick={() => setRequester(null)}
            >
              {t('results:detail.allExams')}
            </Button>
            {requesters.map((name) => (
              <Button
                key={name}
                size="compact-sm"
                variant={requester === name ? 'filled' : 'default'}
                aria-pressed={requester === name}
                onClick={() => setRequester(name)}
              >
                {t('results:detail.examsOf', { name })}
              </Button>
            ))}
          </Group>
        )}
        {exams.length === 0 ? (
          <Text>{t('results:detail.noExams')}</Text>
        ) : (
          <ExamTable
            exams={exams}
            showStatus={protocol.hasExamStatusVisualizer}
            showRequester={variant === 'patient' || variant === 'protocol'}
            actions={{
              busy: opener.busy,
              smart: { institutionId: protocol.institutionId, protocolNumber: protocol.number },
              onReport: (exam, rid) => void opener.open('report', rid, target(exam)),
              onImage: (exam, rid) => void opener.open('image', rid, target(exam)),
              onSignature: (exam, rid) => void opener.open('signature', rid, target(exam)),
              onStudy: (exam, studyUid) => void navigate(studyPath(studyUid, exam.description)),
            }}
          />
        )}
      </Stack>
      {opener.viewer}
      <SignatureModal
        opened={signatureHelp}
        onClose={() => setSignatureHelp(false)}
        reports={(protocol.exams ?? []).flatMap((exam) => {
          const signedId = examDisplay(exam).signedId;
          return signedId ? [{ resourceId: signedId, exam: exam.description }] : [];
        })}
      />
    </Container>
  );
}

export const PatientProtocolPage = () => <ProtocolDetailPage variant="patient" />;
export const PhysicianProtocolPage = () => <ProtocolDetailPage variant="physician" />;
export const GuestProtocolPage = () => <ProtocolDetailPage variant="protocol" />;
export const ExternalExamPage = () => <ProtocolDetailPage variant="external" />;
