/**
 * The write-ahead log's checkpoints on a thread of their own (docs/operations.md "Checkpoints").
 *
 * In WAL mode a commit appends pages to the log; a *checkpoint* copies them into the database
 * file and fsyncs it. SQLite runs one itself in the COMMIT that takes the log past 1,000 pages
 * (`wal_autocheckpoint`): on the one connection that writes, on the thread that answers requests,
 * for as long as the copy and the fsync take (a few ms for requests' writes, 10–40 ms after an
 * ingestion step's 4–6 MB). Here a worker thread with a connection of its own runs a `PASSIVE`
 * checkpoint (which never waits for a lock and never blocks the writer or a reader) at most every
 * `intervalMs` after a commit, at a low priority on Linux (`nice`: it takes the time the requests
 * leave on a busy core, and an idle core's), and the writer's own threshold is raised to
 * `writerFallbackPages`: it checkpoints only if this thread falls that far behind, or after it
 * failed (then at SQLite's default again).
 *
 * The thread starts at the first commit (a start that only reads has none) and is `unref`'d; it
 * loads better-sqlite3 from the path this module resolves, so it runs the same from the sources,
 * `dist/` and a bundle. Its connection closes before the writer's: the writer's close, the last
 * one, still checkpoints the rest and removes the log.
 */
import { Effect } from "effect"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** The writer's own `wal_autocheckpoint` while the thread runs: 4,000 pages (16 MiB of log). */
export const writerFallbackPages = 4_000

/** SQLite's default `wal_autocheckpoint`, the writer's again if the thread fails. */
export const writerDefaultPages = 1_000

/** The thread's program (CommonJS, run with `eval`): a checkpoint when told of a commit, at most every `intervalMs`. */
const program = `
const { workerData, parentPort } = require("node:worker_threads")
const Database = require(workerData.driver)
// a low priority (Linux: a thread's nice value is its own): on a core the requests keep busy it
// runs in the time they leave, and the writer takes over if it falls too far behind
if (workerData.nice !== 0) {
  try {
    const thread = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop())
    require("node:os").setPriority(thread, workerData.nice)
  } catch {}
}
const db = new Database(workerData.filename, { fileMustExist: true })
db.pragma("synchronous = " + workerData.synchronous)
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)")
let last = -Infinity
let timer
const run = () => {
  timer = undefined
  last = Date.now()
  checkpoint.get()
  parentPort.postMessage("checkpointed")
}
parentPort.on("message", (message) => {
  if (message === "close") {
    if (timer !== undefined) clearTimeout(timer)
    db.close()
    parentPort.close()
  } else if (timer === undefined) {
    timer = setTimeout(run, Math.max(0, last + workerData.intervalMs - Date.now()))
  }
})
`

export interface WalCheckpointerOptions {
  readonly filename: string
  /** The writer's `synchronous`: the checkpoint fsyncs the database file unless it is OFF. */
  readonly synchronous: string
  /** The shortest time between two checkpoints. */
  readonly intervalMs: number
  /** The thread's nice value on Linux (0 leaves it at the process's priority). */
  readonly nice: number
  /** Called once if the thread fails (the writer then checkpoints as SQLite does by default). */
  readonly onFailure: (error: unknown) => void
}

export interface WalCheckpointer {
  /** A commit happened: a checkpoint follows within `intervalMs` (starts the thread the first time). */
  readonly committed: () => void
}

/** The checkpointer of `options.filename`, its thread stopped (and its connection closed) with the scope. */
export const make = (options: WalCheckpointerOptions) =>
  Effect.gen(function*() {
    const driver = createRequire(import.meta.url).resolve("better-sqlite3")
    let worker: Worker | undefined
    /**
     * Told of a commit, and not yet answered: a further commit is not told (the checkpoint to come
     * copies it, unless it ran just before that commit: then the commit after next tells).
     */
    let told = false
    let failed = false

    const fail = (error: unknown) => {
      if (failed) return
      failed = true
      worker = undefined
      options.onFailure(error)
    }

    const start = () => {
      const started = new Worker(program, {
        eval: true,
        workerData: { driver, filename: options.filename, synchronous: options.synchronous, intervalMs: options.intervalMs, nice: options.nice }
      })
      started.unref()
      started.on("message", () => {
        told = false
      })
      started.on("error", fail)
      started.on("exit", (code) => {
        if (worker === started) fail(new Error(`the checkpoint thread exited (code ${code})`))
      })
      return started
    }

    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        const running = worker
        worker = undefined
        if (running === undefined) return resume(Effect.void)
        // its connection closes before the writer's; a thread that does not end soon is stopped
        const stop = setTimeout(() => void running.terminate(), 2_000)
        running.once("exit", () => {
          clearTimeout(stop)
          resume(Effect.void)
        })
        running.postMessage("close")
      })
    )

    return {
      committed: () => {
        if (failed || told) return
        worker ??= start()
        told = true
        worker.postMessage("commit")
      }
    } satisfies WalCheckpointer
  })
