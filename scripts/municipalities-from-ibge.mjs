// Writes apps/server/src/modules/delivery/municipalities.json from IBGE's territorial division
// table (DTB), given as tab-separated lines: UF code, UF name, municipality code (5 digits, or the
// full 7), municipality name. Each municipality is kept once, by its IBGE code.
//
//   node scripts/municipalities-from-ibge.mjs <dtb.tsv>
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const UF_BY_CODE = {
  11: 'RO',
  12: 'AC',
  13: 'AM',
  14: 'RR',
  15: 'PA',
  16: 'AP',
  17: 'TO',
  21: 'MA',
  22: 'PI',
  23: 'CE',
  24: 'RN',
  25: 'PB',
  26: 'PE',
  27: 'AL',
  28: 'SE',
  29: 'BA',
  31: 'MG',
  32: 'ES',
  33: 'RJ',
  35: 'SP',
  41: 'PR',
  42: 'SC',
  43: 'RS',
  50: 'MS',
  51: 'MT',
  52: 'GO',
  53: 'DF',
};
// The capital of each federative unit, by name (names are unique within a unit).
const CAPITALS = {
  AC: 'Rio Branco',
  AL: 'Maceió',
  AP: 'Macapá',
  AM: 'Manaus',
  BA: 'Salvador',
  CE: 'Fortaleza',
  DF: 'Brasília',
  ES: 'Vitória',
  GO: 'Goiânia',
  MA: 'São Luís',
  MT: 'Cuiabá',
  MS: 'Campo Grande',
  MG: 'Belo Horizonte',
  PA: 'Belém',
  PB: 'João Pessoa',
  PR: 'Curitiba',
  PE: 'Recife',
  PI: 'Teresina',
  RJ: 'Rio de Janeiro',
  RN: 'Natal',
  RS: 'Porto Alegre',
  RO: 'Porto Velho',
  RR: 'Boa Vista',
  SC: 'Florianópolis',
  SP: 'São Paulo',
  SE: 'Aracaju',
  TO: 'Palmas',
};

const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/municipalities-from-ibge.mjs <dtb.tsv>');
  process.exit(2);
}
const byUf = new Map();
for (const line of fs.readFileSync(source, 'utf8').split(/\r?\n/)) {
  const [ufCode, , code, name] = line.split('\t').map((v) => v?.trim());
  const uf = UF_BY_CODE[ufCode];
  if (!uf || !code || !name) continue;
  const full = code.length === 7 ? code : `${ufCode}${code}`;
  if (!/^\d{7}$/.test(full)) throw new Error(`bad municipality code in: ${line}`);
  if (!byUf.has(uf)) byUf.set(uf, new Map());
  byUf.get(uf).set(full, name);
}
const collator = new Intl.Collator('pt-BR');
const out = {};
let total = 0;
for (const uf of Object.values(UF_BY_CODE).sort()) {
  const entries = [...(byUf.get(uf) ?? new Map())].sort((a, b) => collator.compare(a[1], b[1]));
  const capital = entries.find(([, name]) => name === CAPITALS[uf]);
  if (!capital) throw new Error(`no capital ${CAPITALS[uf]} in ${uf}`);
  out[uf] = { capital: capital[0], municipalities: entries };
  total += entries.length;
}
const target = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../apps/server/src/modules/delivery/municipalities.json',
);
fs.writeFileSync(target, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${total} municipalities in ${Object.keys(out).length} federative units -> ${target}`);
