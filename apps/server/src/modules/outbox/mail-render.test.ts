import { describe, expect, it } from 'vitest';
import { renderMail } from './mail-render.js';
import type { MailKind } from './outbox.service.js';

const PUBLIC_URL = 'https://resultados.clinica.test';
const KINDS: Record<MailKind, string | undefined> = {
  activation: '/api/v2/auth/user/registerValidate?token=t1',
  passwordRecovery: '/password/reset?token=t2&language=pt-br',
  physicianInvitation: '/physician/create?code=DEMO&token=t3&language=pt-br',
  companyInvitation: '/company-access/create?token=t4&language=pt-br',
  adminInvitation: '/admin/invitation?token=t8&language=pt-br',
  patientInvitation: '/patient/create?token=t5&language=pt-br',
  externalFirstPassword: '/password/reset?token=t6&language=pt-br',
  protocolShared: '/landing/t7',
  resultReady: undefined,
  resultDigest: '/login',
  accessAlert: '/patient/accesses?protocol=p1',
};

describe('mail templates', () => {
  for (const language of ['pt-br', 'es', 'en'] as const) {
    it(`renders every mail in ${language} with its link alone on a line`, () => {
      const subjects = new Set<string>();
      for (const [kind, path] of Object.entries(KINDS) as Array<[MailKind, string | undefined]>) {
        const mail = renderMail(
          { kind, to: 'x@example.test', language, link: path, params: { count: 2, days: 3, senderName: 'Ana' } },
          PUBLIC_URL,
        );
        const link = `${PUBLIC_URL}${path ?? '/login'}`;
        const lines = mail.text.split('\n');
        expect(lines).toContain(link);
        expect(lines.filter((l) => l.includes(PUBLIC_URL))).toEqual([link]);
        expect(mail.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
        expect(`${mail.subject}${mail.text}${mail.html}`).not.toMatch(/undefined|null|NaN/);
        subjects.add(mail.subject);
      }
      expect(subjects.size).toBe(Object.keys(KINDS).length);
    });
  }

  it('translates by the request language in any letter case, pt-br by default', () => {
    const render = (language: string) =>
      renderMail({ kind: 'passwordRecovery', to: 'x', language }, PUBLIC_URL).subject;
    expect(render('PT-BR')).toBe('Redefinição de senha');
    expect(render('ES')).toBe('Restablecimiento de contraseña');
    expect(render('en')).toBe('Password reset');
    expect(render('fr')).toBe('Redefinição de senha');
  });

  it('brands the mail with the institution and escapes what people typed', () => {
    const mail = renderMail(
      {
        kind: 'protocolShared',
        to: 'x',
        language: 'pt-br',
        link: '/landing/t',
        institutionName: 'Clínica <Demo>',
        params: { senderName: 'Ana', message: `olhe\n${PUBLIC_URL}/evil <b>já</b>`, days: 1 },
      },
      PUBLIC_URL,
    );
    expect(mail.subject).toBe('Ana compartilhou resultados de exames com você - Clínica <Demo>');
    expect(mail.html).toContain('Clínica &lt;Demo&gt;');
    expect(mail.html).not.toContain('<b>já</b>');
    expect(mail.text).toContain('O acesso fica disponível por 1 dia.');
    // The typed message cannot put a second address on a line of its own.
    expect(mail.text.split('\n').filter((l) => l.startsWith(PUBLIC_URL))).toEqual([`${PUBLIC_URL}/landing/t`]);
  });

  it('says how many results are ready in a digest, and never a result itself', () => {
    const mail = renderMail(
      { kind: 'resultDigest', to: 'x', language: 'en', params: { count: 1, period: 'DAY' } },
      PUBLIC_URL,
    );
    expect(mail.subject).toBe('1 new exam result');
    expect(mail.text).toContain('Daily summary: 1 new exam result is available on the portal.');
  });
});
