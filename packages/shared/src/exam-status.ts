/** Spec 4.1: server exam status values and their display codes. */
export const EXAM_STATUS_CODES = ['P', 'A', 'D', 'L', 'N', 'R', 'RF', 'DU', 'LP', 'NC', 'RE', 'NI'] as const;
export type ExamStatusCode = (typeof EXAM_STATUS_CODES)[number];

const STATUS_TO_CODE: Record<string, ExamStatusCode> = {
  P: 'P',
  PENDING: 'P',
  A: 'A',
  IN_PROGRESS: 'A',
  D: 'D',
  DISCARDED: 'D',
  RELEASED: 'L',
  L: 'L',
  N: 'N',
  NOT_DISPONIBLE: 'N',
  R: 'R',
  RETIFICATION: 'R',
  RF: 'RF',
  FINISHED_RETIFICATION: 'RF',
  DU: 'DU',
  UNIT_AVAILABLE: 'DU',
  LP: 'LP',
  PARTIAL_REPORT: 'LP',
  NC: 'NC',
  NEW_EXAM_COLLECTION: 'NC',
};

/** Maps a server status to its display code; undefined counts as released, anything unknown as NI. */
export function examStatusCode(status: string | null | undefined): ExamStatusCode {
  if (status === undefined || status === null || status === '') return 'L';
  return STATUS_TO_CODE[status.toUpperCase()] ?? 'NI';
}

/** Spec 3: status labels (pt-br, as the institutions print them). */
export const EXAM_STATUS_LABELS: Record<ExamStatusCode, string> = {
  P: 'Pendente',
  A: 'Andamento',
  D: 'Descartado',
  L: 'Liberado',
  N: 'Nao Disponivel',
  NI: 'Nao Informado',
  RF: 'Retificacao Finalizada',
  DU: 'Disponivel na Unidade',
  LP: 'Laudo Parcial',
  NC: 'Nova coleta',
  R: 'Aguardando Retificacao',
  RE: 'Repetir exame',
};

export const RESOURCE_TYPES = ['IMAGE', 'REPORT', 'REPORT_PHYSICIAN', 'ANALYSIS'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const EMAIL_FREQUENCIES = ['DEFAULT', 'DISABLED', 'EXAM', 'DAY', 'WEEK'] as const;
export type EmailFrequency = (typeof EMAIL_FREQUENCIES)[number];

export const INVITATION_STATUSES = ['CREATED', 'INVITE_SEND', 'AUTO_INVITE', 'ON_CREATION'] as const;

/** Where an exam stands, in the words a patient reads beside its name (the code stays as a badge). */
export const EXAM_PLAIN_STATES = [
  'ready',
  'partial',
  'rectification',
  'pending',
  'atUnit',
  'discarded',
  'unavailable',
  'notInformed',
] as const;
export type ExamPlainState = (typeof EXAM_PLAIN_STATES)[number];

const CODE_TO_PLAIN: Record<ExamStatusCode, ExamPlainState> = {
  L: 'ready',
  RF: 'ready',
  LP: 'partial',
  R: 'rectification',
  P: 'pending',
  A: 'pending',
  NC: 'pending',
  RE: 'pending',
  DU: 'atUnit',
  D: 'discarded',
  N: 'unavailable',
  NI: 'notInformed',
};

/** Spec 4.1: a report whose rectification is PENDING is awaiting rectification whatever its status. */
export function examPlainState(statusCode: string, rectificationStatus: string | null): ExamPlainState {
  if (rectificationStatus?.toUpperCase() === 'PENDING') return 'rectification';
  return CODE_TO_PLAIN[statusCode as ExamStatusCode] ?? 'notInformed';
}
