import { describe, expect, it } from 'vitest';
import { emptyInstitutionForm, toPayload, zInstitutionForm } from './institution-form';

describe('institution form', () => {
  it('sends empty texts as null and the notice only with its Portuguese text', () => {
    const payload = toPayload({ ...emptyInstitutionForm, code: 'lab', name: ' Lab ', noticeEs: 'Hola' }, false);
    expect(payload).toMatchObject({ code: 'lab', name: 'Lab', viewType: 2, supportEmail: null, logoPath: null });
    expect(payload.settings.protocolNotice).toBeNull();
    expect('smart' in payload.settings).toBe(false);
    const withNotice = toPayload({ ...emptyInstitutionForm, noticePtBr: 'Aviso', noticeEn: 'Notice' }, false);
    expect(withNotice.settings.protocolNotice).toEqual({ 'pt-br': 'Aviso', en: 'Notice' });
  });

  it('keeps a stored SMART connection without its secret, and removes it when the URL is cleared', () => {
    const keep = toPayload({ ...emptyInstitutionForm, smartUrl: 'https://smart.example.com' }, true);
    expect('smart' in keep.settings).toBe(false);
    expect(toPayload(emptyInstitutionForm, true).settings).toMatchObject({ smart: null });
    const set = toPayload(
      { ...emptyInstitutionForm, smartUrl: 'https://s.example.com', smartSecret: 's'.repeat(16) },
      false,
    );
    expect(set.settings).toMatchObject({ smart: { url: 'https://s.example.com', secret: 's'.repeat(16) } });
  });

  it('sends the HL7 sending facilities typed one a line or with commas, upper case and each once', () => {
    const payload = toPayload(
      { ...emptyInstitutionForm, hl7Facilities: ' lab01\nLAB01&2.16.76.1&ISO, Lab01 \n\n' },
      false,
    );
    expect(payload.hl7SendingFacilities).toEqual(['LAB01', 'LAB01&2.16.76.1&ISO']);
    expect(toPayload(emptyInstitutionForm, false).hl7SendingFacilities).toEqual([]);
  });

  it('refuses a code with spaces and a malformed e-mail', () => {
    const result = zInstitutionForm.safeParse({ ...emptyInstitutionForm, code: 'a b', name: 'x', supportEmail: 'no' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path[0]).sort()).toEqual(['code', 'supportEmail']);
  });
});
