import { BRAZILIAN_STATES } from '@portal/shared/limits';
import { describe, expect, it } from 'vitest';
import { MUNICIPALITIES } from './municipalities.js';

describe("IBGE's municipalities", () => {
  it('lists all 5,570, each once, under the federative unit its IBGE code names, with one capital each', () => {
    const all = BRAZILIAN_STATES.flatMap((uf) => MUNICIPALITIES[uf].map((m) => ({ ...m, uf })));
    expect(all).toHaveLength(5570);
    expect(new Set(all.map((m) => m.code)).size).toBe(5570);
    for (const uf of BRAZILIAN_STATES) {
      const list = MUNICIPALITIES[uf];
      expect(
        list.filter((m) => m.capital),
        uf,
      ).toHaveLength(1);
      expect(list[0]!.capital, uf).toBe(true);
      expect(
        list.every((m) => /^\d{7}$/.test(m.code) && m.code.slice(0, 2) === list[0]!.code.slice(0, 2)),
        uf,
      ).toBe(true);
    }
    expect(MUNICIPALITIES.DF.map((m) => m.name)).toEqual(['Brasília']);
    expect(MUNICIPALITIES.RJ[0]).toMatchObject({ name: 'Rio de Janeiro', code: '3304557' });
    expect(MUNICIPALITIES.MG).toHaveLength(853);
  });
});
