import { examStatusCode, type ExamStatusCode } from '@portal/shared/exam-status';
import type { Exam } from '@portal/shared/schemas/delivery';
import { formatExamDate } from '../lib/dates';

export interface ExamDisplay {
  code: ExamStatusCode;
  /** Spec 4.1: discarded exams are greyed out. */
  greyed: boolean;
  /** Spec 4.1: a finished rectification shows the date of service as 'updated at' with the time. */
  updated: boolean;
  serviceDate: string | null;
  deliveredDate: string | null;
  /** Spec 4.1: a pending rectification hides the report and shows a red icon. */
  awaitingRectification: boolean;
  reportId: string | null;
  /** Every readable file of the exam (spec 3: REPORT, REPORT_PHYSICIAN, ANALYSIS), reports first. */
  documents: Array<{ type: DocumentType; id: string }>;
  imageId: string | null;
  signedId: string | null;
}

export type DocumentType = 'REPORT' | 'REPORT_PHYSICIAN' | 'ANALYSIS';
const DOCUMENT_ORDER: readonly DocumentType[] = ['REPORT', 'REPORT_PHYSICIAN', 'ANALYSIS'];

type ExamFields = Pick<
  Exam,
  | 'status'
  | 'statusCode'
  | 'rectificationStatus'
  | 'performedAt'
  | 'deliveredAt'
  | 'identifierReport'
  | 'identifierImage'
  | 'hideImageButtonExam'
  | 'resources'
>;

/** How one exam row looks (spec 4.1), apart from its texts. */
export function examDisplay(exam: ExamFields): ExamDisplay {
  const code = examStatusCode(exam.statusCode || exam.status);
  const updated = code === 'RF';
  const awaitingRectification = exam.rectificationStatus?.toUpperCase() === 'PENDING';
  const signed = exam.resources.find((r) => r.hasSignedFile && r.type !== 'IMAGE') ?? null;
  return {
    code,
    greyed: code === 'D',
    updated,
    serviceDate: formatExamDate(exam.performedAt, updated),
    deliveredDate: formatExamDate(exam.deliveredAt),
    awaitingRectification,
    reportId: awaitingRectification ? null : exam.identifierReport,
    documents: DOCUMENT_ORDER.flatMap((type) =>
      // A report awaiting rectification stays closed (spec 4.1); the server withholds it too.
      awaitingRectification && type !== 'ANALYSIS'
        ? []
        : exam.resources.filter((r) => r.type === type).map((r) => ({ type, id: r.identifier })),
    ),
    imageId: exam.hideImageButtonExam ? null : exam.identifierImage,
    signedId: awaitingRectification ? null : (signed?.identifier ?? null),
  };
}
