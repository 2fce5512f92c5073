import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

let ticksPerSecond: number | undefined;
/** USER_HZ, the unit of the times in /proc/<pid>/stat (100 on nearly every Linux): asked of getconf once. */
function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  if (!(ticksPerSecond > 0)) throw new Error(`getconf CLK_TCK answered ${ticksPerSecond}`);
  return ticksPerSecond;
}

/**
 * CPU time a process has used so far, user + system, all its threads (the service's sign-in
 * worker threads included), in milliseconds: utime and stime of /proc/<pid>/stat. Read from outside,
 * so that no server needs code of its own to report it; its resolution is one clock tick (10 ms).
 */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Field 2, the command name, is in parentheses and may hold spaces: count from after it, where field 3 is index 0.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return ((utime + stime) * 1000) / clockTicksPerSecond();
}

/**
 * CPU time, user + system, of the children of process `pid` that it has waited for (cutime and
 * cstime of /proc/<pid>/stat), in milliseconds: read before a child starts and after it has been
 * reaped (Node reaps before its 'exit' event), the difference is that child's whole CPU time,
 * to its last tick, which sampling its own /proc entry cannot give once it has exited.
 */
export async function reapedChildrenCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(fields[16 - 3]);
  const cstime = Number(fields[17 - 3]);
  return ((cutime + cstime) * 1000) / clockTicksPerSecond();
}
