import { api } from '../lib/api-client';

/** Spec 3: an exam whose key starts with SMART is viewed in the institution's own system. */
export function isSmartExam(examKey: string): boolean {
  return examKey.toUpperCase().startsWith('SMART');
}

interface SmartAuth {
  token: string;
  url: string;
  expiresIn: number;
}

/** The address that opens one exam in the institution's SMART system, with the token it trusts. */
export function smartLaunchUrl(auth: SmartAuth, exam: { examKey: string }, protocolNumber: string): string {
  const url = new URL(auth.url, window.location.origin);
  url.searchParams.set('token', auth.token);
  url.searchParams.set('exam', exam.examKey);
  url.searchParams.set('protocol', protocolNumber);
  return url.toString();
}

/**
 * Spec 7.4: asks the portal for a short-lived token (interlocution/smart/auth) and opens the
 * institution's system with it in a new tab. The tab is opened before the call, inside the click,
 * so that browsers do not block it as a pop-up; it goes to the address once the answer arrives.
 */
export async function openSmartExam(
  institutionId: string,
  exam: { id: string; examKey: string },
  protocolNumber: string,
): Promise<void> {
  const tab = window.open('', '_blank');
  try {
    const auth = await api<SmartAuth>('/api/v2/delivery/interlocution/smart/auth', {
      query: { institution: institutionId, exam: exam.id },
    });
    const target = smartLaunchUrl(auth, exam, protocolNumber);
    if (tab) {
      // The institution's page must not reach back into the portal's tab.
      tab.opener = null;
      tab.location.href = target;
    } else window.location.assign(target);
  } catch (error) {
    tab?.close();
    throw error;
  }
}
