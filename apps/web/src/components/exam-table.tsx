import '@mantine/core/styles/Badge.css';
import '@mantine/core/styles/Card.css';
import '@mantine/core/styles/Table.css';
import { Badge, Box, Button, Card, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import { EXAM_STATUS_CODES, type ExamStatusCode } from '@portal/shared/exam-status';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthorizedImage, DICOMWEB } from './dicom-images';
import { TOAST_MS } from '@portal/shared/limits';
import { useState } from 'react';
import { errorText } from '../lib/errors';
import { notify } from '../lib/notify';
import { examDisplay, type ExamDisplay } from './exam-display';
import { HoldBadge, HoldNotice, ReleaseButton, ReleaseConfirmation } from './exam-hold';
import { isSmartExam, openSmartExam } from './smart-launch';
import type { Exam } from './results-api';
import { ScrollTable } from './scroll-table';
import { usePhone } from '../lib/use-phone';

export interface ExamActions {
  onReport: (exam: Exam, resourceId: string) => void;
  onImage: (exam: Exam, resourceId: string) => void;
  onSignature: (exam: Exam, resourceId: string) => void;
  /** Opens the exam's DICOM study in the viewer; without it the study is not offered. */
  onStudy?: (exam: Exam, studyUid: string) => void;
  busy?: string | null;
  /** Where the exams' SMART system is reached from (spec 3): the protocol's institution and number. */
  smart?: { institutionId: string; protocolNumber: string };
}

/** Spec 3 and 7.4: a SMART exam opens in the institution's own system. */
function SmartButton({ exam, smart }: { exam: Exam; smart: NonNullable<ExamActions['smart']> }) {
  const { t } = useTranslation('results');
  const [busy, setBusy] = useState(false);
  return (
    <Button
      size="compact-sm"
      variant="light"
      loading={busy}
      aria-label={t('exam.openSmartOf', { exam: exam.description })}
      onClick={() => {
        setBusy(true);
        openSmartExam(smart.institutionId, exam, smart.protocolNumber)
          .catch((error: unknown) => notify('error', errorText(error), TOAST_MS.long))
          .finally(() => setBusy(false));
      }}
    >
      {t('exam.openSmart')}
    </Button>
  );
}

function RectificationIcon() {
  const { t } = useTranslation('results');
  return (
    <Tooltip label={t('exam.awaitingRectification')}>
      <Group gap={4} wrap="nowrap" c="red.9">
        <svg
          width={18}
          height={18}
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          aria-hidden="true"
        >
          <circle cx="12" cy="12" r="9" />
          <path d="M12 7v6M12 16.5v.5" />
        </svg>
        <Text size="xs" fw={600}>
          {t('exam.awaitingRectification')}
        </Text>
      </Group>
    </Tooltip>
  );
}

function ReadBadge({ read }: { read: boolean }) {
  const { t } = useTranslation('results');
  return (
    <Badge
      variant={read ? 'light' : 'filled'}
      color={read ? 'gray' : 'blue.9'}
      miw="max-content"
      data-testid="exam-read-state"
    >
      {read ? t('exam.read') : t('exam.unread')}
    </Badge>
  );
}

function FileButtons({ exam, d, actions }: { exam: Exam; d: ExamDisplay; actions: ExamActions }) {
  const { t } = useTranslation('results');
  const label = exam.description;
  const hold = exam.hold ?? null;
  return (
    <Group gap={6} wrap="wrap">
      {hold && (
        <Stack gap={4} w="100%">
          <Group gap={6} wrap="wrap">
            <HoldBadge hold={hold} />
            {hold.canRelease && <ReleaseButton examId={exam.id} description={exam.description} />}
          </Group>
          <HoldNotice hold={hold} />
        </Stack>
      )}
      {d.awaitingRectification && <RectificationIcon />}
      {actions.smart && isSmartExam(exam.examKey) && <SmartButton exam={exam} smart={actions.smart} />}
      {d.documents.map((doc, index) => {
        // Several files of one kind are numbered: "Laudo 1", "Laudo 2".
        const same = d.documents.filter((other) => other.type === doc.type);
        const n = same.length > 1 ? ` ${same.indexOf(doc) + 1}` : '';
        return (
          <Button
            key={`${doc.type}-${doc.id}-${index}`}
            size="compact-sm"
            variant="light"
            aria-label={`${t(`exam.openDocumentOf.${doc.type}`, { exam: label })}${n}`}
            loading={actions.busy === `report:${doc.id}:false`}
            onClick={() => actions.onReport(exam, doc.id)}
          >
            {t(`exam.documents.${doc.type}`)}
            {n}
          </Button>
        );
      })}
      {d.imageId && (
        <Button
          size="compact-sm"
          variant="light"
          aria-label={t('exam.openImageOf', { exam: label })}
          loading={actions.busy === `image:${d.imageId}:false`}
          onClick={() => actions.onImage(exam, d.imageId ?? '')}
        >
          {t('exam.image')}
        </Button>
      )}
      {exam.dicomStudyUid && actions.onStudy && (
        <StudyButton exam={exam} studyUid={exam.dicomStudyUid} onOpen={actions.onStudy} other={!!d.imageId} />
      )}
      {d.signedId && (
        <Button
          size="compact-sm"
          variant="subtle"
          aria-label={t('exam.signedOf', { exam: label })}
          onClick={() => actions.onSignature(exam, d.signedId ?? '')}
        >
          {t('exam.signed')}
        </Button>
      )}
      {d.documents.length === 0 &&
        !hold?.withheld &&
        !d.imageId &&
        !exam.dicomStudyUid &&
        !d.awaitingRectification &&
        !isSmartExam(exam.examKey) && (
          <Text size="xs" c="dimmed">
            {t('exam.noFiles')}
          </Text>
        )}
    </Group>
  );
}

/** The exam's DICOM study: its key image, and the button that opens the viewer. */
function StudyButton({
  exam,
  studyUid,
  onOpen,
  other,
}: {
  exam: Exam;
  studyUid: string;
  onOpen: (exam: Exam, studyUid: string) => void;
  other: boolean;
}) {
  const { t } = useTranslation('results');
  return (
    <Group gap={6} wrap="nowrap">
      <Box
        component="button"
        type="button"
        onClick={() => onOpen(exam, studyUid)}
        aria-label={t('dicom.openStudyOf', { exam: exam.description })}
        p={0}
        style={{ border: 0, background: 'none', cursor: 'pointer', lineHeight: 0 }}
      >
        <AuthorizedImage
          path={`${DICOMWEB}/studies/${studyUid}/thumbnail`}
          alt={t('dicom.keyImageOf', { exam: exam.description })}
          size={40}
        />
      </Box>
      <Button
        size="compact-sm"
        variant="light"
        aria-label={t('dicom.openStudyOf', { exam: exam.description })}
        onClick={() => onOpen(exam, studyUid)}
        data-testid="open-study"
      >
        {other ? t('dicom.images') : t('exam.image')}
      </Button>
    </Group>
  );
}

// Dark shades: the legend sits on the page background, where the lighter ones lack contrast.
const statusColor = (code: ExamStatusCode) => (code === 'D' ? 'gray.7' : 'blue.9');

function StatusBadge({ code }: { code: ExamStatusCode }) {
  return (
    <Badge variant="outline" color={statusColor(code)} miw="max-content">
      {code}
    </Badge>
  );
}

function StatusCode({ d }: { d: ExamDisplay }) {
  const { t } = useTranslation('results');
  const label = t(`exam.statusLabels.${d.code}`);
  return (
    <Tooltip label={label}>
      <Badge variant="outline" color={statusColor(d.code)} miw="max-content" aria-label={label}>
        {d.code}
      </Badge>
    </Tooltip>
  );
}

/**
 * Spec 4.1: a code alone tells a patient nothing, so wherever the status column shows, every code
 * is spelled out below it, RE (repeat exam) included although no server value maps to it.
 */
function StatusLegend() {
  const { t } = useTranslation('results');
  return (
    <Box component="section" aria-label={t('exam.statusLegend')} data-testid="status-legend">
      <Text size="xs" fw={600} mb={4}>
        {t('exam.statusLegend')}
      </Text>
      <Box component="dl" m={0} style={legendGrid}>
        {EXAM_STATUS_CODES.map((code) => (
          <Group key={code} gap={6} wrap="nowrap">
            <Box component="dt" m={0}>
              <StatusBadge code={code} />
            </Box>
            <Text component="dd" size="xs" m={0}>
              {t(`exam.statusLabels.${code}`)}
            </Text>
          </Group>
        ))}
      </Box>
    </Box>
  );
}

const legendGrid = {
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fill, minmax(11rem, 1fr))',
  gap: '4px 12px',
} as const;

function ServiceDate({ d }: { d: ExamDisplay }) {
  const { t } = useTranslation('results');
  if (!d.serviceDate) return <>{t('list.notInformed')}</>;
  return <>{d.updated ? t('exam.updatedAt', { date: d.serviceDate }) : d.serviceDate}</>;
}

/**
 * The exams of one protocol (spec 2.8): a table on wide screens and cards on phones. Discarded
 * exams are greyed; a pending rectification withholds the report (spec 4.1). The table keeps which
 * release is being confirmed, above its switch between the two layouts.
 */
export function ExamTable(props: Parameters<typeof ExamRows>[0]) {
  const confirming = useState<string | null>(null);
  return (
    <ReleaseConfirmation.Provider value={confirming}>
      <ExamRows {...props} />
    </ReleaseConfirmation.Provider>
  );
}

/**
 * The exams of one protocol (spec 2.8): a table on wide screens and cards on phones. Discarded
 * exams are greyed; a pending rectification withholds the report (spec 4.1).
 */
function ExamRows({
  exams,
  showStatus,
  showRequester,
  actions,
  caption,
}: {
  exams: Exam[];
  showStatus: boolean;
  showRequester: boolean;
  actions: ExamActions;
  caption?: ReactNode;
}) {
  const { t } = useTranslation('results');
  const phone = usePhone();
  const rows = exams.map((exam) => ({ exam, d: examDisplay(exam) }));

  const legend = showStatus ? <StatusLegend /> : null;

  if (phone) {
    return (
      <Stack gap="xs" data-testid="exam-cards">
        {rows.map(({ exam, d }) => (
          <Card key={exam.id} withBorder padding="sm" opacity={d.greyed ? 0.55 : 1} data-testid="exam-row">
            <Stack gap={4}>
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Text fw={600} size="sm">
                  {exam.description}
                </Text>
                <ReadBadge read={exam.examRead} />
              </Group>
              <Text size="xs">
                {t('exam.modality')}: {exam.modalityName}
                {showStatus && (
                  <>
                    {' · '}
                    {t('exam.status')}: <StatusCode d={d} />
                  </>
                )}
              </Text>
              {showRequester && exam.requesterName && (
                <Text size="xs">
                  {t('exam.requester')}: {exam.requesterName}
                </Text>
              )}
              <Text size="xs">
                {t('exam.delivered')}: {d.deliveredDate ?? t('list.notInformed')} · {t('exam.service')}:{' '}
                <ServiceDate d={d} />
              </Text>
              <FileButtons exam={exam} d={d} actions={actions} />
            </Stack>
          </Card>
        ))}
        {legend}
      </Stack>
    );
  }

  return (
    <Stack gap="xs">
      <ScrollTable label={t('detail.examsTable')} minWidth={720}>
        <Table striped highlightOnHover withTableBorder verticalSpacing="xs" data-testid="exam-table">
          {caption && <Table.Caption>{caption}</Table.Caption>}
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('exam.delivered')}</Table.Th>
              {showStatus && <Table.Th scope="col">{t('exam.status')}</Table.Th>}
              {showRequester && <Table.Th scope="col">{t('exam.requester')}</Table.Th>}
              <Table.Th scope="col">{t('exam.modality')}</Table.Th>
              <Table.Th scope="col">{t('exam.description')}</Table.Th>
              <Table.Th scope="col">{t('exam.service')}</Table.Th>
              <Table.Th scope="col">{t('exam.readState')}</Table.Th>
              <Table.Th scope="col">{t('exam.files')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(({ exam, d }) => (
              <Table.Tr key={exam.id} c={d.greyed ? 'dimmed' : undefined} data-testid="exam-row" data-greyed={d.greyed}>
                <Table.Td>{d.deliveredDate ?? t('list.notInformed')}</Table.Td>
                {showStatus && (
                  <Table.Td>
                    <StatusCode d={d} />
                  </Table.Td>
                )}
                {showRequester && <Table.Td>{exam.requesterName ?? t('list.notInformed')}</Table.Td>}
                <Table.Td>{exam.modalityName}</Table.Td>
                <Table.Td>{exam.description}</Table.Td>
                <Table.Td>
                  <ServiceDate d={d} />
                </Table.Td>
                <Table.Td>
                  <ReadBadge read={exam.examRead} />
                </Table.Td>
                <Table.Td>
                  <FileButtons exam={exam} d={d} actions={actions} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {legend}
    </Stack>
  );
}
