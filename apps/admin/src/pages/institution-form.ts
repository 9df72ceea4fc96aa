import { z } from 'zod';
import type { InstitutionView } from '@portal/shared/schemas/institution';
import { PROTOCOL_NOTICE_MAX } from '@portal/shared/schemas/institution';

/** The institution screen's fields, as text the inputs hold; `toPayload` makes the API's body. */
export const zInstitutionForm = z.object({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{2,32}$/, 'code'),
  name: z.string().trim().min(1, 'required').max(200),
  viewType: z.enum(['1', '2']),
  logoPath: z.string(),
  supportEmail: z.union([z.literal(''), z.email('email')]),
  supportPhoneNumber: z.string().trim().max(32),
  supportWhatsAppNumber: z.string().trim().max(32),
  shareEnabled: z.boolean(),
  createAccountDefaultDisabled: z.boolean(),
  autoInvitePatients: z.boolean(),
  accessLogStaffNames: z.boolean(),
  hasExamStatusVisualizer: z.boolean(),
  emailFrequencyDefault: z.enum(['EXAM', 'DAY', 'WEEK', 'DISABLED']),
  visualizerSettings: z.array(
    z.object({
      examTypeCode: z.string().trim().min(1, 'required').max(100),
      hideButton: z.boolean(),
      enable: z.boolean(),
    }),
  ),
  smartUrl: z.union([z.literal(''), z.url('url')]),
  smartSecret: z.string(),
  noticePtBr: z.string().max(PROTOCOL_NOTICE_MAX),
  noticeEs: z.string().max(PROTOCOL_NOTICE_MAX),
  noticeEn: z.string().max(PROTOCOL_NOTICE_MAX),
  /** Contract 9: the MSH-4 sending facilities of its HL7 v2 systems, one a line. */
  hl7Facilities: z.string(),
});
export type InstitutionForm = z.infer<typeof zInstitutionForm>;

export const emptyInstitutionForm: InstitutionForm = {
  code: '',
  name: '',
  viewType: '2',
  logoPath: '',
  supportEmail: '',
  supportPhoneNumber: '',
  supportWhatsAppNumber: '',
  shareEnabled: true,
  createAccountDefaultDisabled: false,
  autoInvitePatients: false,
  accessLogStaffNames: false,
  hasExamStatusVisualizer: false,
  emailFrequencyDefault: 'EXAM',
  visualizerSettings: [],
  smartUrl: '',
  smartSecret: '',
  noticePtBr: '',
  noticeEs: '',
  noticeEn: '',
  hl7Facilities: '',
};

export function formOf(view: InstitutionView): InstitutionForm {
  const notice = view.settings.protocolNotice;
  return {
    code: view.code,
    name: view.name,
    viewType: view.viewType === 1 ? '1' : '2',
    logoPath: view.logoPath ?? '',
    supportEmail: view.supportEmail ?? '',
    supportPhoneNumber: view.supportPhoneNumber ?? '',
    supportWhatsAppNumber: view.supportWhatsAppNumber ?? '',
    shareEnabled: view.settings.shareEnabled,
    createAccountDefaultDisabled: view.settings.createAccountDefaultDisabled,
    autoInvitePatients: view.settings.autoInvitePatients,
    accessLogStaffNames: view.settings.accessLogStaffNames,
    hasExamStatusVisualizer: view.settings.hasExamStatusVisualizer,
    emailFrequencyDefault: view.settings.emailFrequencyDefault,
    visualizerSettings: view.settings.visualizerSettings,
    smartUrl: view.settings.smart?.url ?? '',
    smartSecret: '',
    noticePtBr: notice?.['pt-br'] ?? '',
    noticeEs: notice?.es ?? '',
    noticeEn: notice?.en ?? '',
    hl7Facilities: view.hl7SendingFacilities.join('\n'),
  };
}

const orNull = (value: string) => (value.trim() ? value.trim() : null);

/** The facilities typed one a line (or separated by commas), upper case as stored, each once. */
export function facilitiesOf(text: string): string[] {
  const names = text
    .split(/[\n,]+/)
    .map((v) => v.trim().toUpperCase())
    .filter(Boolean);
  return [...new Set(names)];
}

/**
 * The body of POST or PUT. The SMART secret is never read back: an empty secret keeps the stored
 * connection unless the URL was cleared, which removes it. The notice needs its Portuguese text.
 */
export function toPayload(form: InstitutionForm, hadSmart: boolean) {
  const smart = form.smartUrl
    ? form.smartSecret
      ? { smart: { url: form.smartUrl, secret: form.smartSecret } }
      : {}
    : hadSmart
      ? { smart: null }
      : {};
  const notice = orNull(form.noticePtBr)
    ? {
        'pt-br': form.noticePtBr.trim(),
        ...(orNull(form.noticeEs) ? { es: form.noticeEs.trim() } : {}),
        ...(orNull(form.noticeEn) ? { en: form.noticeEn.trim() } : {}),
      }
    : null;
  return {
    code: form.code.trim(),
    name: form.name.trim(),
    viewType: Number(form.viewType),
    logoPath: orNull(form.logoPath),
    supportEmail: orNull(form.supportEmail),
    supportPhoneNumber: orNull(form.supportPhoneNumber),
    supportWhatsAppNumber: orNull(form.supportWhatsAppNumber),
    hl7SendingFacilities: facilitiesOf(form.hl7Facilities),
    settings: {
      shareEnabled: form.shareEnabled,
      createAccountDefaultDisabled: form.createAccountDefaultDisabled,
      autoInvitePatients: form.autoInvitePatients,
      accessLogStaffNames: form.accessLogStaffNames,
      hasExamStatusVisualizer: form.hasExamStatusVisualizer,
      emailFrequencyDefault: form.emailFrequencyDefault,
      visualizerSettings: form.visualizerSettings.map((v) => ({ ...v, examTypeCode: v.examTypeCode.trim() })),
      protocolNotice: notice,
      ...smart,
    },
  };
}
