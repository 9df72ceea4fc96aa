import type { TestPortal } from './helpers.js';
import {
  type ExamInput,
  makeInstitution,
  makeProtocol,
  makeResource,
  makeUser,
  pdfBytes,
} from '../modules/delivery/test-factories.js';

type UserInput = Omit<Parameters<typeof makeUser>[1], 'type'>;

/** The physician who asked for the exams of both patients' first protocols. */
export const REQUESTER = { crm: '12345', uf: 'SP' };

/**
 * What the access log and its alerts are tested on: one institution; a patient (the owner) with
 * two protocols, the first asked for by a physician the institution vouches for, with a signed
 * report on its first exam; another patient with one protocol and report by the same physician.
 */
export async function makeAccessWorld(
  portal: TestPortal,
  input: {
    institution: string;
    owner: UserInput;
    otherPatient: UserInput;
    physician?: UserInput;
    /** The exams of the owner's first protocol (the first gets the report); one by default. */
    examsOfA?: ExamInput[];
    /** Called once the institution exists, before the protocols: a tag for protocolA, say. */
    beforeProtocols?: (institutionId: string) => Promise<{ tagId?: string } | void>;
  },
) {
  const { ctx, sessionFor } = portal;
  const institution = await makeInstitution(ctx, { name: input.institution });
  const owner = await makeUser(ctx, { type: 'PATIENT', ...input.owner });
  const otherPatient = await makeUser(ctx, { type: 'PATIENT', ...input.otherPatient });
  const physician = await makeUser(ctx, {
    type: 'PHYSICIAN',
    name: 'Pedro Alves',
    ...REQUESTER,
    vouchedBy: [institution.id],
    ...input.physician,
  });
  const early = (await input.beforeProtocols?.(institution.id)) ?? {};
  const a = await makeProtocol(ctx, {
    institutionId: institution.id,
    patientUserId: owner.id,
    tagId: early.tagId,
    exams: input.examsOfA ?? [{ requester: REQUESTER }],
  });
  const a2 = await makeProtocol(ctx, { institutionId: institution.id, patientUserId: owner.id });
  const b = await makeProtocol(ctx, {
    institutionId: institution.id,
    patientUserId: otherPatient.id,
    exams: [{ requester: REQUESTER }],
  });
  const reportA = await makeResource(ctx, {
    examId: a.exams[0]!.id,
    type: 'REPORT',
    bytes: await pdfBytes('A report'),
    signed: { bytes: Buffer.from('signed'), contentType: 'application/pkcs7-signature' },
  });
  const reportB = await makeResource(ctx, { examId: b.exams[0]!.id, type: 'REPORT', bytes: await pdfBytes('B') });
  return {
    institution,
    owner,
    otherPatient,
    physician,
    a,
    a2,
    b,
    reportA,
    reportB,
    asOwner: () => sessionFor({ role: 'PATIENT', userId: owner.id, username: owner.email }),
    asOtherPatient: () => sessionFor({ role: 'PATIENT', userId: otherPatient.id, username: otherPatient.email }),
    asPhysician: () => sessionFor({ role: 'PHYSICIAN', userId: physician.id, username: physician.email }),
  };
}
