import '@mantine/core/styles/Badge.css';
import { Badge, Box, Group, Text } from '@mantine/core';
import { examPlainState, type ExamPlainState } from '@portal/shared/exam-status';
import type { ListedExam } from '@portal/shared/schemas/delivery';
import { useTranslation } from 'react-i18next';
import { HoldBadge, HoldNotice } from './exam-hold';
import { StatusBadge } from './status-badge';

const TONE: Record<ExamPlainState, 'success' | 'warning' | 'neutral' | 'danger'> = {
  ready: 'success',
  partial: 'warning',
  rectification: 'danger',
  pending: 'neutral',
  atUnit: 'neutral',
  discarded: 'neutral',
  unavailable: 'neutral',
  notInformed: 'neutral',
};

/** A result the person can open and has not opened yet. */
const isNew = (exam: ListedExam, state: ExamPlainState) => !exam.examRead && (state === 'ready' || state === 'partial');

/**
 * A protocol's exams by name, each saying in words where it stands (ready, partial, awaiting
 * rectification, pending...), with spec 4.1's letter code as a small badge where the institution
 * shows codes, and "new" on results not opened yet.
 */
export function ExamWords({ exams, showCode }: { exams: readonly ListedExam[]; showCode: boolean }) {
  const { t } = useTranslation('results');
  if (exams.length === 0) return null;
  return (
    <Box component="ul" m={0} p={0} style={{ listStyle: 'none' }} data-testid="exam-words">
      {exams.map((exam) => {
        const state = examPlainState(exam.statusCode, exam.rectificationStatus);
        const codeLabel = t(`exam.statusLabels.${exam.statusCode}`, { defaultValue: exam.statusCode });
        return (
          <Box component="li" key={exam.id} py={2} data-state={state}>
            <Group gap={6} wrap="wrap" align="center">
              <Text span size="sm" fw={500} td={state === 'discarded' ? 'line-through' : undefined}>
                {exam.description}
              </Text>
              {exam.hold?.withheld ? (
                <HoldBadge hold={exam.hold} />
              ) : (
                <StatusBadge tone={TONE[state]}>{t(`examWords.${state}`)}</StatusBadge>
              )}
              {showCode && (
                <Badge
                  size="xs"
                  variant="outline"
                  color="gray.8"
                  title={codeLabel}
                  aria-label={t('examWords.code', { code: exam.statusCode, label: codeLabel })}
                >
                  {exam.statusCode}
                </Badge>
              )}
              {isNew(exam, state) && !exam.hold?.withheld && (
                <Badge size="sm" color="blue.9" variant="filled" data-testid="exam-new">
                  {t('examWords.new')}
                </Badge>
              )}
            </Group>
            {exam.hold?.withheld && <HoldNotice hold={exam.hold} />}
          </Box>
        );
      })}
    </Box>
  );
}
