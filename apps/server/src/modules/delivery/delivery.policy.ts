import type { SessionRole } from '../../db/schema.js';

/** Who is asking, with the facts the access rules of spec 6 need. */
export interface Viewer {
  role: SessionRole;
  userId: string | null;
  sessionId: string;
  /** Guest and share sessions: the protocols the session reaches. */
  sessionProtocolIds: ReadonlySet<string>;
  /**
   * Physicians: the CRM + UF of their license and the institutions that vouched for them, in id
   * order (the license opens those institutions' protocols only); null when none vouched.
   */
  license: { crm: string; uf: string; institutionIds: readonly string[] } | null;
  /** Physicians and external users: the tags they are members of. */
  tagIds: ReadonlySet<string>;
}

/** What a protocol must reveal to decide whether a viewer may see it. */
export interface ProtocolFacts {
  id: string;
  institutionId: string;
  /** 0/1 as stored, or a boolean. */
  disabled: boolean | number;
  patientUserId: string | null;
  tagId: string | null;
  requesterLicenses: ReadonlyArray<{ crm: string; uf: string }>;
}

const DELIVERY_ROLES: ReadonlySet<SessionRole> = new Set(['PATIENT', 'GUEST', 'SHARE', 'PHYSICIAN', 'EXTERNAL']);

/** Admin and company sessions work in the administration API only (spec 6). */
export function canUseDelivery(role: SessionRole): boolean {
  return DELIVERY_ROLES.has(role);
}

/**
 * Spec 6: the one rule deciding whether a protocol is the viewer's; disabled protocols are nobody's.
 * A physician's license opens a protocol only in an institution that vouched for him.
 */
export function canSeeProtocol(viewer: Viewer, protocol: ProtocolFacts): boolean {
  if (protocol.disabled === true || protocol.disabled === 1) return false;
  switch (viewer.role) {
    case 'PATIENT':
      return viewer.userId !== null && protocol.patientUserId === viewer.userId;
    case 'GUEST':
    case 'SHARE':
      return viewer.sessionProtocolIds.has(protocol.id);
    case 'PHYSICIAN': {
      const license = viewer.license;
      const requested =
        license !== null &&
        license.institutionIds.includes(protocol.institutionId) &&
        protocol.requesterLicenses.some(
          (l) => l.crm === license.crm && l.uf.toUpperCase() === license.uf.toUpperCase(),
        );
      return requested || (protocol.tagId !== null && viewer.tagIds.has(protocol.tagId));
    }
    case 'EXTERNAL':
      return protocol.tagId !== null && viewer.tagIds.has(protocol.tagId);
    default:
      return false;
  }
}

/**
 * Whose read state a viewer reads and writes (contract 8): an account its own, a guest the
 * protocol's patient (or the protocol itself when no account is linked), a share session none.
 */
export function readerKey(viewer: Viewer, protocol: { id: string; patientUserId: string | null }): string | null {
  switch (viewer.role) {
    case 'PATIENT':
    case 'PHYSICIAN':
    case 'EXTERNAL':
      return viewer.userId;
    case 'GUEST':
      return protocol.patientUserId ?? `protocol:${protocol.id}`;
    default:
      return null;
  }
}

/** Contract 8: batch printing is for physicians and external users. */
export function canBatchPrint(role: SessionRole): boolean {
  return role === 'PHYSICIAN' || role === 'EXTERNAL';
}

/** Spec 6: the results history is a patient feature. */
export function canViewHistory(role: SessionRole): boolean {
  return role === 'PATIENT';
}

/** Spec 3: the historic button shows for patients only. */
export function showsHistoricButton(role: SessionRole, hasAnalytes: boolean): boolean {
  return role === 'PATIENT' && hasAnalytes;
}

/** Institution visualizer settings per exam type (spec 6). */
export interface VisualizerSetting {
  hideButton: boolean;
  enable: boolean;
}

/** An exam is served when enabled by the institution's system and its type is not switched off. */
export function isExamServed(exam: { isEnabled: boolean }, setting: VisualizerSetting | undefined): boolean {
  return exam.isEnabled && (setting === undefined || setting.enable);
}

/** Reports awaiting rectification are withheld (spec 4.1, contract 8). */
export function isReportWithheld(exam: { rectificationStatus: string | null }): boolean {
  return (exam.rectificationStatus ?? '').toUpperCase() === 'PENDING';
}

/** Administration trace reads: admins everywhere, company users for their own institution. */
export function canReadTrace(
  role: SessionRole,
  userInstitutionId: string | null,
  protocolInstitutionId: string,
): boolean {
  if (role === 'ADMIN') return true;
  return role === 'COMPANY' && userInstitutionId !== null && userInstitutionId === protocolInstitutionId;
}
