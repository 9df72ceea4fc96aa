import type { SqlReader } from '../../db/database.js';
import { type InstitutionSettings, parseInstitutionSettings } from '../institutions/institution.service.js';
import type { VisualizerSetting } from './delivery.policy.js';
import { institutionsWithSettings } from './delivery.repository.js';
import type { HoldRules } from './holds.js';

/** An institution as delivery answers use it: its names, parsed settings and visualizer settings. */
export interface DeliveryInstitution {
  id: string;
  code: string;
  name: string;
  token: string;
  settings: InstitutionSettings;
  /** Visualizer settings by exam type code (spec 6). */
  visualizer: ReadonlyMap<string, VisualizerSetting>;
  /** Release-hold rules by exam type code, upper-cased (issue 22). */
  holds: HoldRules;
}

interface Copy {
  revision: number;
  byId: Map<string, DeliveryInstitution>;
}

/** Institutions change rarely and are read by every list: a copy per database, by revision. */
const copies = new WeakMap<SqlReader, Copy>();
const KEPT = 10_000;

/**
 * The institutions `ids` with their settings, as of `revision`: the revision of institutions and
 * visualizer settings that the caller's session statement read (triggers move it on every change,
 * whichever process makes it). A copy of another revision is dropped, an older one or a newer one
 * (a database put back from a backup starts counting again).
 */
export async function institutionsAt(
  r: SqlReader,
  revision: number,
  ids: readonly string[],
): Promise<Map<string, DeliveryInstitution>> {
  const current = copies.get(r);
  const copy = current?.revision === revision ? current : { revision, byId: new Map<string, DeliveryInstitution>() };
  if (copy !== current) copies.set(r, copy);
  // The answer is made of what this call finds now and what it reads itself, so nothing another
  // call does to the copy meanwhile (dropping it, clearing it) can take an institution from it.
  const out = new Map<string, DeliveryInstitution>();
  const missing = new Set<string>();
  for (const id of ids) {
    const known = copy.byId.get(id);
    if (known) out.set(id, known);
    else missing.add(id);
  }
  if (missing.size > 0) {
    // Read after this revision was seen, so at least as new as it: kept in this call's copy even
    // when another revision replaced it meanwhile (calls of that revision read their own).
    const rows = await institutionsWithSettings(r, [...missing]);
    if (copy.byId.size + rows.size > KEPT) copy.byId.clear();
    for (const [id, { row, visualizer, holds }] of rows) {
      const institution: DeliveryInstitution = {
        id: row.id,
        code: row.code,
        name: row.name,
        token: row.token,
        settings: parseInstitutionSettings(row.settings),
        visualizer,
        holds,
      };
      copy.byId.set(id, institution);
      out.set(id, institution);
    }
  }
  return out;
}
