import { LegalPage } from './legal-page';

/** Spec 2.1 /politica-de-privacidade. */
export default function PrivacyPolicyPage() {
  return <LegalPage kind="PP" />;
}
