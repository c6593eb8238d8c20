// Linux process checks for the tests that host executables (Maelstrom nodes).
import { readFileSync } from 'node:fs';

/** Whether a process with this pid exists (signal 0 checks without sending). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's state letter and parent from /proc/<pid>/stat: 'T' is stopped. */
export function procStat(pid: number): { state: string; ppid: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: state!, ppid: Number(ppid) };
}
