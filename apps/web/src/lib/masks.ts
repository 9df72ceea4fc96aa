/** imask patterns ('0' is a digit). */
export const MASK = {
  cpf: '000.000.000-00',
  date: '00/00/0000',
  mfaToken: '000000',
  // A landline has 10 digits and a mobile 11; imask picks the first mask the value fits.
  phone: [{ mask: '(00) 0000-0000' }, { mask: '(00) 00000-0000' }],
} as const;
