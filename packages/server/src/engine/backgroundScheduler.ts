/**
 * The scheduler of the workflow engine's fibers (engine/Lifecycles.ts): background work that
 * gives way to requests. Every engine fiber that is ready to run waits in one queue, run in
 * slices of the event loop, one slice per turn of the loop (scheduled with `setImmediate`, so
 * after the loop has polled for I/O: the requests that arrived meanwhile run first). A slice is
 * `sliceMillis` long when the turn before it did nothing else, `busySliceMillis` when it did
 * (the time from the slice's scheduling to its start tells). A fiber in a slice gives way when
 * the slice's time is up (checked every `checkEvery` operations), or after `maxOps` operations
 * at the latest.
 *
 * With no requests the loop turns at once and the engine has the process to itself in long
 * slices. Under a load of requests (the standalone server took one in less than
 * `loadMemoryMillis`: platform/requestArrivals.ts) requests come first and the engine has the
 * time they leave: after a turn of the loop that served nothing (shorter than `idleTurnMillis`)
 * with no request for `idleGapMillis`, a slice of `busySliceMillis`, free. When requests keep
 * the loop busy, the engine still has a share of the time, so that its work is never starved:
 * slices paid from a budget that grows by `loadShare` of the time that passes, up to
 * `budgetMillis`; such a slice runs only while the budget is positive, is `busySliceMillis` long
 * at most, and is taken from it. A slice may overdraw (its fibers run to their first look at the
 * clock): the next paid ones wait until the time has paid it back, `overdraftMillis` of it at
 * most. What the engine's fibers run inside a slice counts, the commits of the engine's own
 * writes included (fast/sqliteClient.ts commits a group that an engine fiber opened as a task of
 * this scheduler); the garbage they leave does not. The engine's own I/O (files read, a thread's
 * answers) is not load, only requests are; under load, a turn spent on it makes the next slice a
 * paid one. A free slice is short, but what one operation of a fiber does is not cut: a commit's
 * fsync, a large read of the engine's messages (docs/benchmarks.md "Lifecycles under a burst": a
 * light load's p99 while a burst runs).
 *
 * Effect's default scheduler runs every ready fiber up to 2,048 operations in microtasks before
 * the loop gets to I/O: a burst of lifecycles kept requests waiting for seconds
 * (docs/benchmarks.md, "The engine's scheduler").
 */
import type { Scheduler, Task } from "effect/Scheduler"
import { performance } from "node:perf_hooks"
import { lastRequestArrival } from "../platform/requestArrivals.js"

/** How long one slice of the engine may hold the event loop when nothing else wants it (ms). */
export const sliceMillis = 2

/**
 * How long one slice may hold it when the loop ran something else since the last one (ms): a
 * fiber's first look at the clock (after `checkEvery` operations) is then about the end of it.
 */
export const busySliceMillis = 0.05

/**
 * The time the loop may spend between two slices on its own turn (polling, timers, immediates)
 * before it counts as something else wanting it: requests read, answers written (ms).
 */
const quietTurnMillis = 0.5

/**
 * A turn of the loop shorter than this served nothing (ms): an empty turn takes about a
 * microsecond here, serving the cheapest request (a GET by id) about 40.
 */
export const idleTurnMillis = 0.02

/**
 * How long no request has arrived when the engine may take a free slice (ms): under a load that
 * fills the core requests arrive every few hundredths of a millisecond, and a free slice in a
 * short gap between them would delay the next.
 */
export const idleGapMillis = 0.5

/**
 * How long after a request arrived the engine counts as under load (ms): under a steady load
 * requests arrive every fraction of a millisecond; a client that polls every 100 ms holds the
 * engine to its paid slices for 0.5 ms of it (`idleGapMillis`) and to short slices for 2.
 */
export const loadMemoryMillis = 2

/**
 * The engine's share of the time when requests keep every turn of the loop busy (a load that
 * fills the process's core): what it is guaranteed, against starving; the time requests leave
 * is its besides.
 */
export const loadShare = 0.02

/** The most the engine's budget under load grows to (ms): what it may run at once after a pause. */
const budgetMillis = 2

/**
 * The most a paid slice may overdraw the budget by (ms): at 2 % paid back in 50 ms of load, as a
 * 5 ms overdraft was at a tenth.
 */
const overdraftMillis = 1

/** How many operations a fiber runs between looks at the clock. */
const checkEvery = 64

/** How many operations a fiber runs at most before it gives way. */
const maxOps = 2_048

/** The priority a fiber that gave way is scheduled with: it runs first on the next turn. */
const gaveWay = 1

/** A queue of tasks, taken from the front. */
class Queue {
  private tasks: Array<Task | undefined> = []
  private head = 0
  get size() {
    return this.tasks.length - this.head
  }
  push(task: Task) {
    this.tasks.push(task)
  }
  take(): Task {
    const task = this.tasks[this.head]!
    this.tasks[this.head++] = undefined
    if (this.head === this.tasks.length) {
      this.tasks = []
      this.head = 0
    } else if (this.head > 1_024 && this.head * 2 > this.tasks.length) {
      this.tasks = this.tasks.slice(this.head)
      this.head = 0
    }
    return task
  }
}

export const make = (
  slice: number = sliceMillis,
  busySlice: number = busySliceMillis,
  /** The clock of the slices (ms): the process's monotonic one, or a test's. */
  now: () => number = () => performance.now(),
  /** When a request last arrived, on the same clock (platform/requestArrivals.ts). */
  lastRequest: () => number = lastRequestArrival,
  share: number = loadShare
): Scheduler => {
  // fibers that gave way in the middle of their work (one may hold a lock: a transaction's
  // connection) run before fibers woken since, or a lock holder would wait behind its waiters
  const interrupted = new Queue()
  const woken = new Queue()
  let scheduled = false
  let scheduledAt = 0
  let deadline = 0
  let budget = budgetMillis
  let lastEnd = 0

  const schedule = () => {
    if (!scheduled) {
      scheduled = true
      scheduledAt = now()
      setImmediate(drain)
    }
  }

  const drain = () => {
    scheduled = false
    if (interrupted.size === 0 && woken.size === 0) return
    const start = now()
    const turn = start - scheduledAt
    const sinceRequest = start - lastRequest()
    const underLoad = sinceRequest < loadMemoryMillis
    // under load, a slice after a turn that served nothing, in a gap between requests, is free
    const paid = underLoad && (turn >= idleTurnMillis || sinceRequest < idleGapMillis)
    if (underLoad) {
      budget = Math.min(budgetMillis, budget + (start - lastEnd) * share)
      lastEnd = start
      // nothing to spend yet: a later turn
      if (paid && budget <= 0) return schedule()
    } else budget = budgetMillis
    // the loop's turn since the last slice took longer than its own work: it served something
    // else (requests, I/O), which the next turns are likely to bring again: a short slice
    const served = turn > quietTurnMillis
    deadline = start + (paid ? Math.min(busySlice, budget) : underLoad || served ? busySlice : slice)
    // those that gave way first, then those woken since: one at least, more while the slice lasts
    do (interrupted.size > 0 ? interrupted : woken).take()()
    while ((interrupted.size > 0 || woken.size > 0) && now() < deadline)
    lastEnd = now()
    // an overdraft is paid back before the next paid slice, up to `overdraftMillis` of it: one
    // long operation (a commit's fsync) must not keep a fiber that holds the connection's lock
    // waiting for seconds, and every request that needs the lock with it
    if (paid) budget = Math.max(budget - (lastEnd - start), -overdraftMillis)
    if (interrupted.size > 0 || woken.size > 0) {
      // a task scheduled during the slice asked for this turn: the loop's turn starts now
      if (scheduled) scheduledAt = lastEnd
      else schedule()
    }
  }

  return {
    scheduleTask(task: Task, priority: number) {
      ;(priority === gaveWay ? interrupted : woken).push(task)
      schedule()
    },
    shouldYield(fiber) {
      const ops = fiber.currentOpCount
      return ops >= maxOps || (ops % checkEvery === 0 && now() >= deadline) ? gaveWay : false
    }
  }
}
