import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** Resident memory (MiB) of a process's child processes now: the qpdf processes of a merge. */
export function childrenRss(pid: number): number {
  let kib = 0;
  let children: string[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return 0;
  }
  for (const child of children) {
    try {
      kib += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the child ended between the two reads
    }
  }
  return kib / 1024;
}

/** Samples `childrenRss` every 5 ms while `task` runs; its peak in MiB. */
export async function peakOfChildren(pid: number, task: () => Promise<unknown>): Promise<number> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, childrenRss(pid))), 5);
  try {
    await task();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, childrenRss(pid));
}

/** Runs a program under GNU time; its maximum resident size in MiB. */
export function peakOfProgram(file: string, args: string[]): number {
  const run = spawnSync('/usr/bin/time', ['-f', '%M', file, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`${file} failed: ${run.stderr.toString()}`);
  return Number(run.stderr.toString().trim().split('\n').at(-1)) / 1024;
}
