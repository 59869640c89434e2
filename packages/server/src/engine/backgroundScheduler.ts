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
 * slices; under a load of requests each turn serves the requests that arrived, then one short
 * slice of the engine.
 * Effect's default scheduler runs every ready fiber up to 2,048 operations in microtasks before
 * the loop gets to I/O: a burst of lifecycles kept requests waiting for seconds
 * (docs/benchmarks.md, "Lifecycles under a burst").
 */
import type { Scheduler, Task } from "effect/Scheduler"
import { performance } from "node:perf_hooks"

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
  now: () => number = () => performance.now()
): Scheduler => {
  // fibers that gave way in the middle of their work (one may hold a lock: a transaction's
  // connection) run before fibers woken since, or a lock holder would wait behind its waiters
  const interrupted = new Queue()
  const woken = new Queue()
  let scheduled = false
  let scheduledAt = 0
  let deadline = 0

  const schedule = () => {
    if (!scheduled) {
      scheduled = true
      scheduledAt = now()
      setImmediate(drain)
    }
  }

  const drain = () => {
    scheduled = false
    const start = now()
    // the loop's turn since the last slice took longer than its own work: it served something
    // else (requests), which the next turns are likely to bring again: a short slice
    deadline = start + (start - scheduledAt > quietTurnMillis ? busySlice : slice)
    // those that gave way before this turn, each once (giving way again, they wait for the next)
    for (let n = interrupted.size; n > 0; n--) interrupted.take()()
    while (woken.size > 0 && now() < deadline) woken.take()()
    if (interrupted.size > 0 || woken.size > 0) schedule()
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
