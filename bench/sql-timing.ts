/** Profiling aid: times every SQLite statement by its SQL text (imported before the portal opens its database). */
import SQLite from 'better-sqlite3';
const stats = new Map<string, { n: number; us: number }>();
const origPrepare = SQLite.prototype.prepare;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
(SQLite.prototype as any).prepare = function (this: any, src: string) {
  const t0 = performance.now();
  const stmt = origPrepare.call(this, src);
  // Preparing counts once, on the statement's first run.
  let prepUs = (performance.now() - t0) * 1000;
  const key = src.replace(/\?(, \?)*/g, '?').slice(0, 150);
  for (const m of ['all', 'run', 'get'] as const) {
    const orig = stmt[m].bind(stmt);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    (stmt as any)[m] = (...args: unknown[]) => {
      const t1 = performance.now();
      const r = (orig as (...a: unknown[]) => unknown)(...args);
      const s = stats.get(key) ?? { n: 0, us: 0 };
      s.n++;
      s.us += (performance.now() - t1) * 1000 + prepUs;
      prepUs = 0;
      stats.set(key, s);
      return r;
    };
  }
  return stmt;
};
export function dumpSql() {
  console.log(
    [...stats]
      .filter(([k]) => !k.startsWith('insert'))
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, 25)
      .map(([k, s]) => `${(s.us / s.n).toFixed(0).padStart(6)} µs x${s.n}  ${k}`)
      .join('\n'),
  );
  stats.clear();
}
