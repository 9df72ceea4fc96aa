import { describe, expect, it } from 'vitest';
import type { SessionRole } from '../../db/schema.js';
import {
  canBatchPrint,
  canReadTrace,
  canSeeProtocol,
  canUseDelivery,
  canViewHistory,
  isExamServed,
  readerKey,
  type ProtocolFacts,
  type Viewer,
} from './delivery.policy.js';

const protocol: ProtocolFacts = {
  id: 'p1',
  institutionId: 'clinic-a',
  disabled: 0,
  patientUserId: 'patient-1',
  tagId: 'tag-1',
  requesterLicenses: [{ crm: '123', uf: 'SP' }],
};

/** Vouched for by the protocol's institution. */
const A = ['clinic-a'];

function viewer(role: SessionRole, extra: Partial<Viewer> = {}): Viewer {
  return {
    role,
    userId: 'someone',
    sessionId: 's1',
    sessionProtocolIds: new Set(),
    license: null,
    tagIds: new Set(),
    ...extra,
  };
}

describe('delivery access policy', () => {
  const matrix: Array<[string, Viewer, boolean]> = [
    ['owner patient', viewer('PATIENT', { userId: 'patient-1' }), true],
    ['other patient', viewer('PATIENT', { userId: 'patient-2' }), false],
    ['guest of the protocol', viewer('GUEST', { userId: null, sessionProtocolIds: new Set(['p1']) }), true],
    ['guest of another protocol', viewer('GUEST', { userId: null, sessionProtocolIds: new Set(['p2']) }), false],
    ['share of the protocol', viewer('SHARE', { userId: null, sessionProtocolIds: new Set(['p1']) }), true],
    ['share of another protocol', viewer('SHARE', { userId: null, sessionProtocolIds: new Set(['p9']) }), false],
    ['requesting physician', viewer('PHYSICIAN', { license: { crm: '123', uf: 'sp', institutionIds: A } }), true],
    [
      'requesting physician vouched for by several institutions',
      viewer('PHYSICIAN', { license: { crm: '123', uf: 'SP', institutionIds: ['clinic-0', 'clinic-a'] } }),
      true,
    ],
    [
      'physician with the license, vouched for by another institution only',
      viewer('PHYSICIAN', { license: { crm: '123', uf: 'SP', institutionIds: ['clinic-b'] } }),
      false,
    ],
    [
      'physician of another state',
      viewer('PHYSICIAN', { license: { crm: '123', uf: 'RJ', institutionIds: A } }),
      false,
    ],
    ['physician member of the tag', viewer('PHYSICIAN', { tagIds: new Set(['tag-1']) }), true],
    ['external user of the tag', viewer('EXTERNAL', { tagIds: new Set(['tag-1']) }), true],
    ['external user of another tag', viewer('EXTERNAL', { tagIds: new Set(['tag-2']) }), false],
    [
      'external user with the physician license',
      viewer('EXTERNAL', { license: { crm: '123', uf: 'SP', institutionIds: A } }),
      false,
    ],
    ['admin', viewer('ADMIN', { userId: 'patient-1', tagIds: new Set(['tag-1']) }), false],
    ['company', viewer('COMPANY', { tagIds: new Set(['tag-1']) }), false],
  ];
  it.each(matrix)('%s', (_name, v, expected) => {
    expect(canSeeProtocol(v, protocol)).toBe(expected);
    expect(canSeeProtocol(v, { ...protocol, disabled: 1 })).toBe(false);
  });

  it('gives delivery calls to everyone but admin and company users', () => {
    expect(['PATIENT', 'GUEST', 'SHARE', 'PHYSICIAN', 'EXTERNAL'].every((r) => canUseDelivery(r as SessionRole))).toBe(
      true,
    );
    expect(canUseDelivery('ADMIN') || canUseDelivery('COMPANY')).toBe(false);
  });

  it('keeps read state per account, guests as the patient, shares nowhere', () => {
    expect(readerKey(viewer('PHYSICIAN', { userId: 'doc' }), protocol)).toBe('doc');
    expect(readerKey(viewer('GUEST', { userId: null }), protocol)).toBe('patient-1');
    expect(readerKey(viewer('GUEST', { userId: null }), { id: 'p3', patientUserId: null })).toBe('protocol:p3');
    expect(readerKey(viewer('SHARE', { userId: null }), protocol)).toBeNull();
  });

  it('limits batch printing, history and trace reads', () => {
    expect([canBatchPrint('PHYSICIAN'), canBatchPrint('EXTERNAL'), canBatchPrint('PATIENT')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([canViewHistory('PATIENT'), canViewHistory('GUEST'), canViewHistory('SHARE')]).toEqual([true, false, false]);
    expect(canReadTrace('ADMIN', null, 'i1')).toBe(true);
    expect(canReadTrace('COMPANY', 'i1', 'i1')).toBe(true);
    expect(canReadTrace('COMPANY', 'i2', 'i1')).toBe(false);
    expect(canReadTrace('PATIENT', 'i1', 'i1')).toBe(false);
  });

  it('serves enabled exams whose type the institution did not switch off', () => {
    expect(isExamServed({ isEnabled: true }, undefined)).toBe(true);
    expect(isExamServed({ isEnabled: false }, undefined)).toBe(false);
    expect(isExamServed({ isEnabled: true }, { hideButton: true, enable: false })).toBe(false);
  });
});
