import { LegalPage } from './legal-page';

/** Spec 2.1 /termos-de-uso: the patient terms of use. */
export default function TermsOfUsePage() {
  return <LegalPage kind="TERMS" />;
}
