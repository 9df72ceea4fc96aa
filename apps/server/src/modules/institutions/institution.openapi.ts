import { ServerMessage } from '@portal/shared/errors';
import type { OperationDocs } from '../../plugins/openapi.js';

const BASE = '/api/administrationbe/institution';
const ID = { id: '0b9f3c2e-5d1a-4c7e-9a8b-1f2e3d4c5b6a' };
const INSTITUTION = {
  code: 'LAB01',
  name: 'Laboratório Central',
  viewType: 1,
  supportEmail: 'suporte@laboratorio.example.com',
  supportPhoneNumber: '1133334444',
  supportWhatsAppNumber: '11987654321',
};

/** Contract 6: institutions (admins; company users their own). */
export const institutionOperations: OperationDocs = {
  [`POST ${BASE}`]: {
    summary: 'Open an institution; its API key is answered once',
    tag: 'Administration',
    security: 'bearer',
    errors: {
      403: ServerMessage.forbidden,
      409: [ServerMessage.institutionCodeInUse, ServerMessage.hl7SendingFacilityInUse],
    },
    body: INSTITUTION,
  },
  [`GET ${BASE}/{id}`]: {
    summary: 'One institution with its settings',
    tag: 'Administration',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: ServerMessage.institutionNotFound },
    params: ID,
  },
  [`PUT ${BASE}/{id}`]: {
    summary: "Change an institution's data and settings",
    tag: 'Administration',
    security: 'bearer',
    errors: {
      403: ServerMessage.forbidden,
      404: ServerMessage.institutionNotFound,
      409: [ServerMessage.institutionCodeInUse, ServerMessage.hl7SendingFacilityInUse],
    },
    params: ID,
    body: { ...INSTITUTION, settings: { shareEnabled: true, accessLogStaffNames: false, autoInvitePatients: true } },
  },
  [`GET ${BASE}/{id}/hold-rules`]: {
    summary: "An institution's release holds for sensitive results, per exam type",
    tag: 'Administration',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: ServerMessage.institutionNotFound },
    params: ID,
  },
  [`PUT ${BASE}/{id}/hold-rules`]: {
    summary: "Replace an institution's release holds",
    description:
      'Each rule names an exam type as ingest receives it (`exams[].type`) and holds its results back from ' +
      'patients, guests, shares and partner users: for `hours` after release (HOURS), until the requesting ' +
      'physician releases them (PHYSICIAN), or never online (IN_PERSON). `message` is shown to the patient ' +
      'while the result is held. Traced as HOLD_RULES_CHANGED.',
    tag: 'Administration',
    security: 'bearer',
    errors: { 403: ServerMessage.forbidden, 404: ServerMessage.institutionNotFound },
    params: ID,
    body: {
      rules: [
        { examTypeCode: 'HIV', rule: 'PHYSICIAN', message: 'Disponível após a sua consulta.' },
        { examTypeCode: 'BHCG', rule: 'HOURS', hours: 48, message: null },
        { examTypeCode: 'GENETICA', rule: 'IN_PERSON', message: 'Retire o resultado na unidade.' },
      ],
    },
  },
};
