import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DatabaseHandle } from './database.js';
import * as initial from './migrations/2026_11_21_0001_initial.js';
import * as termsSeed from './migrations/2026_11_21_0040_terms_seed.js';
import * as liveProtocolIndexes from './migrations/2026_11_21_0060_live_protocol_indexes.js';
import * as dropSupersededProtocolIndexes from './migrations/2026_11_21_0061_drop_superseded_protocol_indexes.js';
import * as listCoveringIndexes from './migrations/2026_11_22_0070_list_covering_indexes.js';
import * as revisions from './migrations/2026_11_23_0080_revisions.js';
import * as protocolDayCounts from './migrations/2026_11_23_0090_protocol_day_counts.js';
import * as listRevisions from './migrations/2026_11_23_0100_list_revisions.js';
import * as physicianVouches from './migrations/2026_11_26_0300_physician_vouches.js';
import * as callRates from './migrations/2026_11_26_0301_call_rates.js';
import * as outboxSecretExpiry from './migrations/2026_11_26_0302_outbox_secret_expiry.js';
import * as hl7 from './migrations/2026_11_26_0400_hl7.js';
import * as auditConsoleIndexes from './migrations/2026_11_26_0600_audit_console_indexes.js';
import * as dicom from './migrations/2026_11_26_0700_dicom.js';
import * as ingestCalls from './migrations/2026_11_26_0710_ingest_calls.js';
import * as patientPreferredName from './migrations/2026_11_26_0800_patient_preferred_name.js';
import * as accessAlerts from './migrations/2026_11_27_0900_access_alerts.js';
import * as examListWords from './migrations/2026_11_27_1000_exam_list_words.js';
import * as accountsAwaitingInstitution from './migrations/2026_11_27_1010_accounts_awaiting_institution.js';
import * as reportVerification from './migrations/2026_11_27_1230_report_verification.js';
import * as passkeys from './migrations/2026_11_27_1300_passkeys.js';
import * as patientAutoInvitations from './migrations/2026_11_27_1400_patient_auto_invitations.js';
import * as examHolds from './migrations/2026_11_27_1500_exam_holds.js';
import * as outboxInstitution from './migrations/2026_11_27_1600_outbox_institution.js';
import * as stampedCopies from './migrations/2026_11_27_1700_stamped_copies.js';
import * as physicianListRows from './migrations/2026_11_29_0100_physician_list_rows.js';

/** Migrations in order; each `up` receives the dialect for the rare unavoidable branch. */
const MIGRATIONS = {
  '2026_11_21_0001_initial': initial,
  '2026_11_21_0040_terms_seed': termsSeed,
  '2026_11_21_0060_live_protocol_indexes': liveProtocolIndexes,
  '2026_11_21_0061_drop_superseded_protocol_indexes': dropSupersededProtocolIndexes,
  '2026_11_22_0070_list_covering_indexes': listCoveringIndexes,
  '2026_11_23_0080_revisions': revisions,
  '2026_11_23_0090_protocol_day_counts': protocolDayCounts,
  '2026_11_23_0100_list_revisions': listRevisions,
  '2026_11_26_0300_physician_vouches': physicianVouches,
  '2026_11_26_0301_call_rates': callRates,
  '2026_11_26_0302_outbox_secret_expiry': outboxSecretExpiry,
  '2026_11_26_0400_hl7': hl7,
  '2026_11_26_0600_audit_console_indexes': auditConsoleIndexes,
  '2026_11_26_0700_dicom': dicom,
  '2026_11_26_0710_ingest_calls': ingestCalls,
  '2026_11_26_0800_patient_preferred_name': patientPreferredName,
  '2026_11_27_0900_access_alerts': accessAlerts,
  '2026_11_27_1000_exam_list_words': examListWords,
  '2026_11_27_1010_accounts_awaiting_institution': accountsAwaitingInstitution,
  '2026_11_27_1230_report_verification': reportVerification,
  '2026_11_27_1300_passkeys': passkeys,
  '2026_11_27_1400_patient_auto_invitations': patientAutoInvitations,
  '2026_11_27_1500_exam_holds': examHolds,
  '2026_11_27_1600_outbox_institution': outboxInstitution,
  '2026_11_27_1700_stamped_copies': stampedCopies,
  '2026_11_29_0100_physician_list_rows': physicianListRows,
} as const;

/**
 * Runs every migration not run yet; `until` stops after that one (tests of a migration over the
 * data of the versions before it).
 */
export async function migrateToLatest(handle: DatabaseHandle, until?: keyof typeof MIGRATIONS): Promise<void> {
  const names = Object.keys(MIGRATIONS);
  const wanted = until === undefined ? names.length : names.indexOf(until) + 1;
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(
        Object.entries(MIGRATIONS)
          .slice(0, wanted)
          .map(([name, m]): [string, Migration] => [name, { up: (db) => m.up(db, handle.dialect) }]),
      ),
  };
  const migrator = new Migrator({ db: handle.db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}
