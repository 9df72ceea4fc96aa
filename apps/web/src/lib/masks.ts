/** Mask patterns ('0' is a digit), laid out by lib/mask-format. */
export const MASK = {
  cpf: '000.000.000-00',
  date: '00/00/0000',
  mfaToken: '000000',
  // A landline has 10 digits and a mobile 11; the first pattern with room for the digits is used.
  phone: [{ mask: '(00) 0000-0000' }, { mask: '(00) 00000-0000' }],
} as const;
