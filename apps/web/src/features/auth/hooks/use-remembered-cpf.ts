import { REMEMBER_CPF_MS } from '@portal/shared/limits';
import { digitsOnly, formatCpf, isValidCpf, maskCpf } from '@portal/shared/formats';
import { useCallback, useState } from 'react';
import { deleteCookie, readCookie, writeCookie } from '../../../lib/cookies';

// Spec 3: the remembered CPF lives in the cookies `remember` (the CPF) and `hint` (masked, for display).
const REMEMBER = 'remember';
const HINT = 'hint';

export function readRememberedCpf(): string | null {
  const value = readCookie(REMEMBER);
  return value && isValidCpf(value) ? formatCpf(value) : null;
}

export function useRememberedCpf() {
  const [remembered, setRemembered] = useState<string | null>(() => readRememberedCpf());
  const remember = useCallback((cpf: string) => {
    writeCookie(REMEMBER, digitsOnly(cpf), REMEMBER_CPF_MS);
    writeCookie(HINT, maskCpf(cpf), REMEMBER_CPF_MS);
    setRemembered(formatCpf(cpf));
  }, []);
  const forget = useCallback(() => {
    deleteCookie(REMEMBER);
    deleteCookie(HINT);
    setRemembered(null);
  }, []);
  return { remembered, remember, forget };
}
