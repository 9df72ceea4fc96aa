import { Loader, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { studyPath } from '../../../components/dicom-images';
import { ExamTable } from '../../../components/exam-table';
import { type ProtocolItem, useProtocolExams } from '../../../components/results-api';
import type { useResourceOpener } from '../../../components/resource-viewer';

/** The exam details of an expanded row, fetched only when it opens (spec 4.8). */
export function ProtocolExams({
  protocol,
  showRequester,
  opener,
}: {
  protocol: ProtocolItem;
  showRequester: boolean;
  /** Owned by the list, so an open file survives the switch between table and cards. */
  opener: ReturnType<typeof useResourceOpener>;
}) {
  const { t } = useTranslation(['results', 'common']);
  const exams = useProtocolExams(protocol.requestId, true);
  const navigate = useNavigate();
  if (exams.isPending) return <Loader size="sm" aria-label={t('results:list.loadingExams')} />;
  if (exams.isError) return <Text size="sm">{t('results:list.examsError')}</Text>;
  if (exams.data.length === 0) return <Text size="sm">{t('results:list.noExams')}</Text>;
  const target = (examIds: string[], title: string) => ({ requestId: protocol.requestId, examIds, title });
  return (
    <ExamTable
      exams={exams.data}
      showStatus={protocol.hasExamStatusVisualizer}
      showRequester={showRequester}
      actions={{
        busy: opener.busy,
        smart: { institutionId: protocol.institutionId, protocolNumber: protocol.number },
        onReport: (exam, id) => void opener.open('report', id, target([exam.id], exam.description)),
        onImage: (exam, id) => void opener.open('image', id, target([exam.id], exam.description)),
        onSignature: (exam, id) => void opener.open('signature', id, target([exam.id], exam.description)),
        onStudy: (exam, studyUid) => void navigate(studyPath(studyUid, exam.description)),
      }}
    />
  );
}
