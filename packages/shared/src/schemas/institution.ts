import { z } from 'zod';
import { zEmail } from '../validation.js';

/** An institution code: what the branded login page and physician invitations carry (stored upper case). */
export const zInstitutionCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{2,32}$/, 'only letters, digits, "-" and "_", 2 to 32 characters')
  .transform((v) => v.toUpperCase());

/** Spec 2.4: viewType 1 shows the logo on the branded login page, 2 the name as heading. */
export const zViewType = z.number().int().min(1).max(2);

/** The institution's default for accounts whose e-mail frequency is DEFAULT. */
export const zInstitutionEmailFrequency = z.enum(['EXAM', 'DAY', 'WEEK', 'DISABLED']);

/** Spec 3 and 6: per exam type, hide the image button or disable the type. */
export const zVisualizerSetting = z.object({
  examTypeCode: z.string().trim().min(1).max(100),
  hideButton: z.boolean().default(false),
  enable: z.boolean().default(true),
});
export type VisualizerSetting = z.output<typeof zVisualizerSetting>;

/**
 * Release holds (issue 22): how the results of one exam type (the exam's `type` as ingest stores
 * it) are held back from the patient's side: for `hours` after release, until the requesting
 * physician releases them, or never online (delivered in person).
 */
export const HOLD_RULES = ['HOURS', 'PHYSICIAN', 'IN_PERSON'] as const;
export type HoldRuleKind = (typeof HOLD_RULES)[number];
/** Longest hold for the HOURS rule: 90 days. */
export const HOLD_HOURS_MAX = 2160;
export const HOLD_MESSAGE_MAX = 300;

export const zHoldRule = z
  .object({
    examTypeCode: z.string().trim().min(1).max(100),
    rule: z.enum(HOLD_RULES),
    hours: z.number().int().min(1).max(HOLD_HOURS_MAX).nullish(),
    /** The institution's words to the patient while the result is held; null: the portal's default text. */
    message: z
      .string()
      .trim()
      .max(HOLD_MESSAGE_MAX)
      .nullish()
      .transform((v) => (v ? v : null)),
  })
  .superRefine((v, c) => {
    if (v.rule === 'HOURS' && (v.hours === undefined || v.hours === null)) {
      c.addIssue({ code: 'custom', path: ['hours'], message: 'hours is required for the HOURS rule' });
    }
  })
  .transform((v) => ({ ...v, hours: v.rule === 'HOURS' ? (v.hours ?? null) : null }));
export type HoldRule = z.output<typeof zHoldRule>;

export const zHoldRules = z.object({ rules: z.array(zHoldRule).max(200) }).superRefine((v, c) => {
  const seen = new Set<string>();
  v.rules.forEach((r, i) => {
    const key = r.examTypeCode.toUpperCase();
    if (seen.has(key))
      c.addIssue({ code: 'custom', path: ['rules', i, 'examTypeCode'], message: 'repeated exam type' });
    seen.add(key);
  });
});
export type HoldRules = z.output<typeof zHoldRules>;

/** Longest text of the protocol-screen notice, per language. */
export const PROTOCOL_NOTICE_MAX = 500;

const zNoticeText = z.string().trim().min(1).max(PROTOCOL_NOTICE_MAX);

/**
 * Spec 2.8 and 6: the banner one institution shows on its protocol screens, as plain text per
 * language; pt-br is required because it is what every other language falls back to.
 */
export const zProtocolNotice = z.object({
  'pt-br': zNoticeText,
  es: zNoticeText.optional(),
  en: zNoticeText.optional(),
});
export type ProtocolNotice = z.output<typeof zProtocolNotice>;

/** The notice as answered: what was stored, without re-checking its limits. */
export const zProtocolNoticeView = z.object({
  'pt-br': z.string(),
  es: z.string().optional(),
  en: z.string().optional(),
});

const zSmartInput = z.object({
  url: z.url({ protocol: /^https?$/ }).max(500),
  secret: z.string().min(16).max(500),
});

/** Settings as sent: every key optional; an update changes only the keys it carries. */
export const zInstitutionSettingsInput = z.object({
  shareEnabled: z.boolean().optional(),
  createAccountDefaultDisabled: z.boolean().optional(),
  /** A protocol ingested for a patient without an account mails him an invitation (AUTO_INVITE), once. */
  autoInvitePatients: z.boolean().optional(),
  emailFrequencyDefault: zInstitutionEmailFrequency.optional(),
  hasExamStatusVisualizer: z.boolean().optional(),
  /** "Who saw my results": staff named to patients (true) or only as "the clinic's staff" (false, the default). */
  accessLogStaffNames: z.boolean().optional(),
  visualizerSettings: z
    .array(zVisualizerSetting)
    .max(500)
    .refine((list) => new Set(list.map((s) => s.examTypeCode)).size === list.length, 'duplicate examTypeCode')
    .optional(),
  /** Connection to the institution's SMART system; null removes it. */
  smart: zSmartInput.nullish(),
  /** The protocol-screen notice; null removes it. */
  protocolNotice: zProtocolNotice.nullish(),
});
export type InstitutionSettingsInput = z.output<typeof zInstitutionSettingsInput>;

const zPhoneText = z.string().trim().max(32);

/**
 * Contract 9: the MSH-4 sending facilities by which the institution's HL7 v2 systems are known over
 * MLLP (the namespace id, or the whole HD as sent, e.g. `LAB01` or `LAB01&2.16.76.1&ISO`); stored
 * upper case, each one naming a single institution. An update gives the whole list.
 */
export const zHl7SendingFacilities = z
  .array(
    z
      .string()
      .trim()
      .min(1)
      .max(180)
      .transform((v) => v.toUpperCase()),
  )
  .max(50)
  .refine((list) => new Set(list).size === list.length, 'duplicate sending facility');

export const zInstitutionCreate = z.object({
  code: zInstitutionCode,
  name: z.string().trim().min(1).max(200),
  viewType: zViewType.default(2),
  logoPath: z
    .string()
    .trim()
    .max(256 * 1024)
    .nullish(),
  supportEmail: zEmail.nullish(),
  supportPhoneNumber: zPhoneText.nullish(),
  supportWhatsAppNumber: zPhoneText.nullish(),
  settings: zInstitutionSettingsInput.optional(),
  hl7SendingFacilities: zHl7SendingFacilities.optional(),
});
export type InstitutionCreate = z.output<typeof zInstitutionCreate>;

/** PUT: the fields it carries replace the stored ones; `rotateApiKey` issues a new key (shown once). */
export const zInstitutionUpdate = z.object({
  code: zInstitutionCode.optional(),
  name: z.string().trim().min(1).max(200).optional(),
  viewType: zViewType.optional(),
  logoPath: z
    .string()
    .trim()
    .max(256 * 1024)
    .nullish(),
  supportEmail: zEmail.nullish(),
  supportPhoneNumber: zPhoneText.nullish(),
  supportWhatsAppNumber: zPhoneText.nullish(),
  settings: zInstitutionSettingsInput.optional(),
  hl7SendingFacilities: zHl7SendingFacilities.optional(),
  rotateApiKey: z.boolean().optional(),
});
export type InstitutionUpdate = z.output<typeof zInstitutionUpdate>;

export const zInstitutionIdParams = z.object({ id: z.string().min(1).max(64) });

export const zInstitutionCreated = z.object({
  id: z.string(),
  code: z.string(),
  token: z.string(),
  apiKey: z.string(),
});

export const zInstitutionSettings = z.object({
  shareEnabled: z.boolean(),
  createAccountDefaultDisabled: z.boolean(),
  autoInvitePatients: z.boolean(),
  emailFrequencyDefault: zInstitutionEmailFrequency,
  hasExamStatusVisualizer: z.boolean(),
  accessLogStaffNames: z.boolean(),
  visualizerSettings: z.array(z.object({ examTypeCode: z.string(), hideButton: z.boolean(), enable: z.boolean() })),
  /** The secret never leaves the server. */
  smart: z.object({ url: z.string() }).nullable(),
  protocolNotice: zProtocolNoticeView.nullable(),
});

/** What the administration interface reads; the API key is present only right after a rotation. */
export const zInstitutionView = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  token: z.string(),
  viewType: z.number().int(),
  logoPath: z.string().nullable(),
  supportEmail: z.string().nullable(),
  supportPhoneNumber: z.string().nullable(),
  supportWhatsAppNumber: z.string().nullable(),
  settings: zInstitutionSettings,
  /** Contract 9: the MSH-4 sending facilities of its HL7 v2 systems. */
  hl7SendingFacilities: z.array(z.string()),
  /** Spec 3's name for the visualizer list, for screens written against it. */
  institutionVisualizerExamTypeSettingsDTO: z.array(
    z.object({ examType: z.object({ code: z.string() }), hideButton: z.boolean(), enable: z.boolean() }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
  apiKey: z.string().optional(),
});
export type InstitutionView = z.output<typeof zInstitutionView>;
