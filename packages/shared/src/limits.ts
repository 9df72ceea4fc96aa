/** Limits, presets, durations and delays of the product spec (section 9 unless noted). */

export const TOAST_MS = {
  /** Spec 9: default toast duration. */
  default: 2000,
  /** Spec 9: patient create. */
  patientCreate: 4000,
  /** Spec 9: link, print, limit messages and errors. */
  long: 5000,
  /** Spec 9: MFA and edit screens. */
  mfaEdit: 6000,
  /** Spec 9: protocol validation and some info messages. */
  protocolValidation: 10000,
  /** Spec 9: landing and account-incomplete messages stay until closed. */
  persistent: 0,
} as const;

/** Spec 9: remember-me for login by document, 60 days. */
export const REMEMBER_CPF_MS = 5_184_000_000;

/** Spec 5 and 9: batch printing selects between 1 and 50 protocols. */
export const PRINT_MIN_PROTOCOLS = 1;
export const PRINT_MAX_PROTOCOLS = 50;

/** Spec 5 and 9: a share goes to 1 to 5 e-mails with a message of at most 120 characters. */
export const SHARE_MIN_EMAILS = 1;
export const SHARE_MAX_EMAILS = 5;
export const SHARE_MESSAGE_MAX = 120;
/** Spec 9: share expiry presets in days, default 3. */
export const SHARE_PERIODS_DAYS = [1, 3, 7, 10, 15, 20, 25, 30] as const;
export const SHARE_DEFAULT_PERIOD_DAYS = 3;

/** Spec 5 and 9: passwords have at least 6 characters; issue 3 caps them at 128. */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 128;
/** Spec 9: MFA token of 6 digits, MFA phone of at least 11 digits, CPF of 11 digits. */
export const MFA_TOKEN_LENGTH = 6;
export const MFA_PHONE_MIN_DIGITS = 11;
export const CPF_DIGITS = 11;

/** Spec 9: page sizes of the protocol lists. */
export const PAGE_SIZE = { patient: 10, physician: 10, external: 50 } as const;
/**
 * Client trace records (`trace/log`, `trace/log/all`): a record's JSON at most this many bytes
 * (413 beyond), at most this many records per call (400 beyond), at most this many calls per
 * session and minute (429 beyond).
 */
export const TRACE_LIMITS = { recordBytes: 4096, recordsPerCall: 20, callsPerMinute: 30 } as const;

/** Contract 2: a `size` above 100 is cut to 100. */
export const PAGE_SIZE_MAX = 100;
/** Spec 9: patient fallback to the top 10 protocols when the forced list is empty. */
export const PATIENT_FALLBACK_TOP = 10;
/** Spec 9: the pager shows a window of 5 page links. */
export const PAGER_WINDOW = 5;

/** Spec 9: default date ranges of the lists. */
export const DEFAULT_RANGE = {
  patient: { amount: 6, unit: 'month' },
  physician: { amount: 7, unit: 'day' },
  external: { amount: 7, unit: 'day' },
  history: { amount: 6, unit: 'month' },
} as const;

/** Spec 9: date presets of the range pickers. */
export const PATIENT_DATE_PRESETS = ['lastYear', 'lastMonth', 'thisMonth', 'last3Months', 'last6Months'] as const;
export const PHYSICIAN_DATE_PRESETS = ['last7Days', 'last14Days', 'thisMonth', 'last3Months', 'last6Months'] as const;

/** Spec 9: back-to-top button after 300 px of scroll. */
export const BACK_TO_TOP_PX = 300;
/** Spec 9: below 500 px wide the detail rows span 3 columns. */
export const NARROW_WIDTH_PX = 500;
/** Spec 9: terms modal body is 278 px tall and scrolls. */
export const TERMS_MODAL_BODY_PX = 278;

/** Spec 9: delays. */
export const DELAY_MS = {
  searchDebounce: 500,
  listFetch: 200,
  searchClear: 1000,
  historyTypeLoad: 1000,
  unauthorizedRedirect: 2000,
  landingFailureToast: 1000,
  loginErrorHandling: 300,
} as const;

/** Spec 9: history chart truncation: tables wider than 5 columns cut strings to 20 characters, else 100. */
export const HISTORY_WIDE_TABLE_COLUMNS = 5;
export const HISTORY_TRUNCATE_WIDE = 20;
export const HISTORY_TRUNCATE_NARROW = 100;
/** Spec 9: history PDF export is A4 with margins 35, 35, 10, 10 and image width 500. */
export const HISTORY_PDF = { format: 'a4', margins: [35, 35, 10, 10], imageWidth: 500 } as const;

/** Spec 9: exam dates are shown in GMT-3; the week starts on Monday. */
export const EXAM_TIME_ZONE_OFFSET_MINUTES = -180;
export const WEEK_START = 1;

/** Spec 1 and 9: interface languages; pt-br is the default. */
export const LANGUAGES = ['pt-br', 'es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt-br';

/** Spec 9: batch file names are a prefix plus date and time. */
export const BATCH_FILE_PREFIX = 'resultados';

/** Contract 8: one-time token lifetimes. */
export const TOKEN_TTL_MS = {
  activation: 24 * 3600_000,
  reset: 24 * 3600_000,
  invitation: 7 * 24 * 3600_000,
} as const;

/** Contract 8: MFA code lifetime and tries. */
export const MFA_CODE_TTL_MS = 10 * 60_000;
export const MFA_CODE_MAX_TRIES = 5;

/** Contract 8: throttling of guesses. */
export const THROTTLE = {
  /** From the 5th consecutive failure, a lock of 60 s x (failures - 4). */
  freeFailures: 4,
  lockStepMs: 60_000,
  lockMaxMs: 15 * 60_000,
  /** Counters are forgotten after 12 hours without failures. */
  resetAfterMs: 12 * 3600_000,
  /** Per client address, at most 100 failures in 15 minutes. */
  addressMaxFailures: 100,
  addressWindowMs: 15 * 60_000,
} as const;

/** The 27 Brazilian federative units (spec 9). */
export const BRAZILIAN_STATES = [
  'AC',
  'AL',
  'AP',
  'AM',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MT',
  'MS',
  'MG',
  'PA',
  'PB',
  'PR',
  'PE',
  'PI',
  'RJ',
  'RN',
  'RS',
  'RO',
  'RR',
  'SC',
  'SP',
  'SE',
  'TO',
] as const;
export type BrazilianState = (typeof BRAZILIAN_STATES)[number];
