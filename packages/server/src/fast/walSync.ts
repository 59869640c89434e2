/**
 * The fsync of a commit, off the request thread (docs/reliability.md "Durable commits").
 *
 * With `synchronous = FULL` SQLite fsyncs the write-ahead log inside every COMMIT: on the thread
 * that runs it, which in this process is the one that answers requests (3–4 ms a commit on the
 * disk of docs/benchmarks.md, during which nothing else is answered). The group-commit client runs
 * its connection at `synchronous = NORMAL` instead (a COMMIT writes its log frames to the OS and
 * returns; SQLite still syncs the log before every checkpoint and the database after it, so the
 * file is never corrupted) and makes each commit durable here: an `fs.fsync` of the log on libuv's
 * thread pool, started after the COMMIT returned, so it covers every frame that commit wrote. A
 * group's writes complete only when that fsync has: an answered write survives a power cut, as
 * with FULL. Commits that end while an fsync runs share the next one.
 *
 * What differs from FULL: between its COMMIT and its fsync (one fsync at most, a few ms) a group's
 * rows are visible to other connections before they are durable; a power cut in that window loses
 * them, though no caller had been told they were written.
 */
import { Metric } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The write-ahead log fsyncs made by the SQLite clients of this process, each for the commits before it. */
export const walFsyncs = Metric.counter("platform_sqlite_wal_fsyncs", {
  description: "fsyncs of SQLite's write-ahead log made after commits, off the request thread",
  incremental: true
})

/** How a file is synced: `fs.fsync`, or a test's stand-in. */
export type FileSync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void

export interface WalSync {
  /** Calls `done` once every frame committed before this call is durable (with the error of a failed fsync). */
  readonly durable: (done: (error: Error | null) => void) => void
  /** Calls `done` when no fsync is running or waiting (the client's close). */
  readonly drained: (done: () => void) => void
  /** Closes the log's file descriptor (after `drained`). */
  readonly close: () => void
}

/**
 * The syncer of the database `filename`'s write-ahead log (`<filename>-wal`), opened at the first
 * commit (the log exists from then on, and lives as long as the writer's connection). Its first
 * fsync also syncs the directory, where SQLite may just have created the log.
 */
export const make = (filename: string, sync: FileSync = Fs.fsync): WalSync => {
  const log = Path.resolve(`${filename}-wal`)
  let fd: number | undefined
  let directorySynced = false
  let running = false
  // callers waiting for an fsync that starts after their commit
  let waiting: Array<(error: Error | null) => void> = []
  let onDrained: Array<() => void> = []

  const syncDirectory = (next: (error: NodeJS.ErrnoException | null) => void) => {
    if (directorySynced) return next(null)
    let dir: number
    try {
      dir = Fs.openSync(Path.dirname(log), "r")
    } catch (error) {
      return next(error as NodeJS.ErrnoException)
    }
    sync(dir, (error) => {
      Fs.close(dir, () => {})
      if (error === null) directorySynced = true
      next(error)
    })
  }

  const start = () => {
    const batch = waiting
    waiting = []
    running = true
    const finish = (error: NodeJS.ErrnoException | null) => {
      running = false
      if (error === null) walFsyncs.unsafeUpdate(1, [])
      for (const done of batch) done(error)
      if (waiting.length > 0) start()
      else {
        const drained = onDrained
        onDrained = []
        for (const done of drained) done()
      }
    }
    try {
      fd ??= Fs.openSync(log, "r")
    } catch (error) {
      return finish(error as NodeJS.ErrnoException)
    }
    sync(fd, (error) => error === null ? syncDirectory(finish) : finish(error))
  }

  return {
    durable: (done) => {
      waiting.push(done)
      if (!running) start()
    },
    drained: (done) => {
      if (!running && waiting.length === 0) done()
      else onDrained.push(done)
    },
    close: () => {
      if (fd !== undefined) Fs.closeSync(fd)
      fd = undefined
    }
  }
}
