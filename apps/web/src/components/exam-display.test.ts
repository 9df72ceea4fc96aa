import type { Exam } from '@portal/shared/schemas/delivery';
import { describe, expect, it } from 'vitest';
import { examDisplay } from './exam-display';

function exam(fields: Partial<Exam>): Exam {
  return {
    id: 'e1',
    examKey: 'K1',
    description: 'Hemograma',
    type: 'LAB',
    modality: { name: 'Laboratório' },
    modalityCode: 'LAB',
    modalityName: 'Laboratório',
    requester: { identifier: null, name: null },
    requesterName: null,
    resources: [{ type: 'REPORT', identifier: 'r1', hasSignedFile: true }],
    identifierReport: 'r1',
    identifierImage: null,
    examRead: false,
    rectificationStatus: null,
    status: 'RELEASED',
    statusCode: 'L',
    deliveredAt: '2026-03-02T02:30:00.000Z',
    performedAt: '2026-03-01T15:45:00.000Z',
    hasSignedFile: true,
    isEnabled: true,
    hideImageButtonExam: false,
    hasImageResolved: false,
    ...fields,
  };
}

describe('exam display', () => {
  it('shows a released exam with its dates in GMT-3 and its report', () => {
    const d = examDisplay(exam({}));
    expect(d.code).toBe('L');
    expect(d.greyed).toBe(false);
    expect(d.deliveredDate).toBe('01/03/2026');
    expect(d.serviceDate).toBe('01/03/2026');
    expect(d.reportId).toBe('r1');
    expect(d.signedId).toBe('r1');
  });

  it('greys a discarded exam', () => {
    expect(examDisplay(exam({ status: 'DISCARDED', statusCode: 'D' })).greyed).toBe(true);
  });

  it('shows the updated date and time of a finished rectification', () => {
    const d = examDisplay(exam({ status: 'FINISHED_RETIFICATION', statusCode: 'RF' }));
    expect(d.updated).toBe(true);
    expect(d.serviceDate).toBe('01/03/2026 12:45');
  });

  it('withholds the report and the signed file while a rectification is pending', () => {
    const d = examDisplay(exam({ rectificationStatus: 'PENDING' }));
    expect(d.awaitingRectification).toBe(true);
    expect(d.reportId).toBeNull();
    expect(d.signedId).toBeNull();
    expect(d.documents).toEqual([]);
  });

  it("opens every readable file: the report, the physician's report beside it and the analyses", () => {
    const resources = [
      { type: 'ANALYSIS', identifier: 'a1', hasSignedFile: false },
      { type: 'REPORT_PHYSICIAN', identifier: 'rp1', hasSignedFile: false },
      { type: 'IMAGE', identifier: 'i1', hasSignedFile: false },
      { type: 'REPORT', identifier: 'r1', hasSignedFile: true },
      { type: 'ANALYSIS', identifier: 'a2', hasSignedFile: false },
    ];
    expect(examDisplay(exam({ resources })).documents).toEqual([
      { type: 'REPORT', id: 'r1' },
      { type: 'REPORT_PHYSICIAN', id: 'rp1' },
      { type: 'ANALYSIS', id: 'a1' },
      { type: 'ANALYSIS', id: 'a2' },
    ]);
    // While a rectification is pending only the analyses stay open.
    expect(examDisplay(exam({ resources, rectificationStatus: 'PENDING' })).documents).toEqual([
      { type: 'ANALYSIS', id: 'a1' },
      { type: 'ANALYSIS', id: 'a2' },
    ]);
  });

  it('maps unknown statuses to NI and hides an image the institution hides', () => {
    const d = examDisplay(
      exam({ status: 'WHATEVER', statusCode: '', identifierImage: 'i1', hideImageButtonExam: true }),
    );
    expect(d.code).toBe('NI');
    expect(d.imageId).toBeNull();
  });
});
