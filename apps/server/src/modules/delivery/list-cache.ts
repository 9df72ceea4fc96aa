import type { SqlReader } from '../../db/database.js';
import type { JsonAnswer } from '../../lib/json-answer.js';

/** What a kept answer was built from, as the caller's session statement read it before building it. */
export interface ListRevisions {
  listRevision: number;
  settingsRevision: number;
}

/**
 * A default range starts at this very moment minus the role's span: the answer holds while the
 * start moves no further than the first protocol of the reach on or after the start it was built
 * from (`until`; null when there is none, so no protocol can leave the range).
 */
export interface MovingStart {
  from: string;
  until: string | null;
}

interface Kept extends ListRevisions {
  answer: JsonAnswer;
  start: MovingStart | null;
  /** When the answer stops being true by itself (a release hold of N hours on it ends); null: never. */
  expiresAt: string | null;
}

/**
 * Kept answers are dropped, least recently used first, beyond this many characters of JSON in all
 * (the compressed copies a kept answer gathers, one per encoding asked for, add about a tenth).
 */
const KEPT_CHARACTERS = 32 * 1024 * 1024;

/**
 * List answers of patients, physicians and external users, kept as the JSON they were sent as and
 * its compressed forms (spec 9: a list comes from the cache unless forced). An answer is served again only while the
 * revisions of its caller's scopes and read marks, and of the institutions' settings, are those it
 * was built at: triggers move them on every change a list would show, in any server process.
 */
export class ListAnswers {
  private readonly kept = new Map<string, Kept>();
  private characters = 0;

  constructor(private readonly limit = KEPT_CHARACTERS) {}

  /** The kept answer of `key` when it still holds for a call that read `now`, with its range starting at `from`. */
  get(key: string, now: ListRevisions, from: string | undefined, at?: string): JsonAnswer | undefined {
    const kept = this.kept.get(key);
    if (!kept) return undefined;
    const holds =
      (kept.expiresAt === null || (at !== undefined && at < kept.expiresAt)) &&
      kept.listRevision === now.listRevision &&
      kept.settingsRevision === now.settingsRevision &&
      (kept.start === null ||
        (from !== undefined && from >= kept.start.from && (kept.start.until === null || from <= kept.start.until)));
    if (!holds) {
      this.drop(key, kept);
      return undefined;
    }
    // Most recently used last.
    this.kept.delete(key);
    this.kept.set(key, kept);
    return kept.answer;
  }

  set(
    key: string,
    built: ListRevisions,
    answer: JsonAnswer,
    start: MovingStart | null,
    expiresAt: string | null = null,
  ): void {
    const old = this.kept.get(key);
    if (old) this.drop(key, old);
    const size = answer.body.length;
    if (size > this.limit) return;
    for (const [oldestKey, oldest] of this.kept) {
      if (this.characters + size <= this.limit) break;
      this.drop(oldestKey, oldest);
    }
    this.kept.set(key, {
      listRevision: built.listRevision,
      settingsRevision: built.settingsRevision,
      answer,
      start,
      expiresAt,
    });
    this.characters += size;
  }

  private drop(key: string, kept: Kept): void {
    this.kept.delete(key);
    this.characters -= kept.answer.body.length;
  }
}

const byDatabase = new WeakMap<SqlReader, ListAnswers>();

/** The kept list answers of one database. */
export function listAnswersOf(r: SqlReader): ListAnswers {
  let answers = byDatabase.get(r);
  if (!answers) {
    answers = new ListAnswers();
    byDatabase.set(r, answers);
  }
  return answers;
}
