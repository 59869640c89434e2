/**
 * The threads of a process and their nice values, from Linux's /proc (none elsewhere): what the
 * tests of the kit's helper threads read.
 */
import * as Fs from "node:fs"

/** The thread ids of process `pid` (this process by default). */
export const threadIds = (pid: number = process.pid): ReadonlyArray<string> =>
  process.platform === "linux" ? Fs.readdirSync(`/proc/${pid}/task`) : []

/** The nice value of thread `tid` of process `pid` (the 19th field of its `stat`, after the name in parentheses). */
export const niceOf = (tid: string, pid: number = process.pid): number =>
  Number(Fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])
