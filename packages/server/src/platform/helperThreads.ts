/**
 * The standalone server's helper threads at a lower CPU priority (docs/operations.md "Helper
 * threads"). At start a Node process has, besides the thread that runs JavaScript, V8's workers
 * (concurrent marking, sweeping and compiling) and libuv's; on a core the server keeps busy they
 * compete with the request thread as equals, and a full collection's workers took it from the
 * requests for a quarter of a second at a time (docs/benchmarks.md "Helper threads at nice 19").
 * At nice 19 they run in the time the request thread leaves; on a machine with idle cores nothing
 * changes.
 *
 * Linux only (a thread's nice value is its own there: `setpriority` on its thread id); threads made
 * later (libuv's pool, at its first use) keep the priority of the thread that made them. Node
 * only, no Effect: the stream benchmark's subscriber process uses it too; the server's layer is
 * `HelperThreadsNiced` (main.ts).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"

/** The ids of this process's threads but the main one (none where /proc does not list them). */
const helperThreads = (): ReadonlyArray<number> => {
  try {
    return Fs.readdirSync("/proc/self/task").map(Number).filter((tid) => Number.isInteger(tid) && tid !== process.pid)
  } catch {
    return []
  }
}

/** Gives the process's helper threads the nice value `nice`; how many took it. */
export const niceHelperThreads = (nice: number): number => {
  if (process.platform !== "linux" || nice === 0) return 0
  let niced = 0
  for (const tid of helperThreads()) {
    try {
      Os.setPriority(tid, nice)
      niced++
    } catch {
      // a thread that ended meanwhile, or a system that refuses: it keeps its priority
    }
  }
  return niced
}

/**
 * Gives the thread that calls it the nice value `nice` (a worker thread of the kit's own, at its
 * start: `/proc/thread-self` names its thread id); whether it took it.
 */
export const niceThisThread = (nice: number): boolean => {
  if (process.platform !== "linux" || nice === 0) return false
  try {
    Os.setPriority(Number(Fs.readlinkSync("/proc/thread-self").split("/").pop()), nice)
    return true
  } catch {
    return false
  }
}
