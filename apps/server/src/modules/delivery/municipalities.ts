import { BRAZILIAN_STATES, type BrazilianState } from '@portal/shared/limits';
import table from './municipalities.json' with { type: 'json' };

/** A municipality: its IBGE code (7 digits) and name. */
export interface Municipality {
  code: string;
  name: string;
  capital: boolean;
}

const units: Record<string, { capital: string; municipalities: string[][] }> = table;

/**
 * IBGE's municipalities of each federative unit (5,570), written by
 * `scripts/municipalities-from-ibge.mjs` from IBGE's territorial division table: the capital
 * first, then the others in Portuguese alphabetical order.
 */
export const MUNICIPALITIES = {} as Record<BrazilianState, readonly Municipality[]>;
for (const uf of BRAZILIAN_STATES) {
  const unit = units[uf];
  const all = (unit?.municipalities ?? []).map(([code = '', name = '']) => ({
    code,
    name,
    capital: code === unit?.capital,
  }));
  MUNICIPALITIES[uf] = [...all.filter((m) => m.capital), ...all.filter((m) => !m.capital)];
}
