import { describe, expect, it } from 'vitest';
import { attachment, fileNamePart } from './file-names.js';

describe('file names in downloads', () => {
  it('sends a plain ASCII name as it is, and any other with an ASCII fallback and its exact UTF-8 form', () => {
    expect(attachment('resultados_20261120_090000.pdf')).toBe('attachment; filename="resultados_20261120_090000.pdf"');
    expect(attachment("São Paulo (João) 100% * ação's.pdf")).toBe(
      `attachment; filename="Sao Paulo (Joao) 100% * acao's.pdf"; filename*=UTF-8''S%C3%A3o%20Paulo%20%28Jo%C3%A3o%29%20100%25%20%2A%20a%C3%A7%C3%A3o%27s.pdf`,
    );
    // Decomposed input comes out composed; what has no ASCII form becomes "_"; quotes never end the value.
    const d = attachment('Jo\u0061\u0303o 李 "x".pdf');
    expect(d).toBe(`attachment; filename="Joao _ _x_.pdf"; filename*=UTF-8''Jo%C3%A3o%20%E6%9D%8E%20%22x%22.pdf`);
    expect(decodeURIComponent(d.split("UTF-8''")[1]!)).toBe('João 李 "x".pdf');
  });

  it('keeps letters of any language in a name part and replaces only what file systems refuse', () => {
    expect(fileNamePart('  ..Raio-X: tórax/perfil?  ', 'x')).toBe('Raio-X tórax perfil');
    expect(fileNamePart('\u0000/', 'exame')).toBe('exame');
  });
});
