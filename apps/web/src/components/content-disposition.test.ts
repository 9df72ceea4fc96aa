import { describe, expect, it } from 'vitest';
import { fileNameOf } from './content-disposition';

describe('download file names', () => {
  it('keeps the name the server gives', () => {
    expect(fileNameOf('attachment; filename="resultados_20261121-2210.zip"', 'x')).toBe('resultados_20261121-2210.zip');
    expect(fileNameOf('attachment; filename=laudo.pdf', 'x')).toBe('laudo.pdf');
  });

  it('prefers the encoded form', () => {
    expect(fileNameOf('attachment; filename="a.pdf"; filename*=UTF-8\'\'hist%C3%B3rico.pdf', 'x')).toBe(
      'histórico.pdf',
    );
  });

  it('falls back without a header', () => {
    expect(fileNameOf(null, 'arquivo')).toBe('arquivo');
  });
});
