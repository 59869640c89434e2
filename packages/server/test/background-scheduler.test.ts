/**
 * The engine's scheduler (engine/backgroundScheduler.ts) on a clock of the test's own: a slice is
 * long when the loop did nothing else since the last one, short when it did (requests served in
 * between); a fiber in a slice gives way when the slice is up, and runs first on the next turn;
 * while requests arrive, the engine runs in the turns that served nothing, and otherwise in slices
 * paid from a budget of a share of the time.
 */
import { assert, describe, it } from "@effect/vitest"
import type { RuntimeFiber } from "effect/Fiber"
import { setImmediate as nextTurn } from "node:timers/promises"
import { make } from "../src/engine/backgroundScheduler.js"

/** A fiber as `shouldYield` sees it: its operation count at a look at the clock (a multiple of 64). */
const fiber = { currentOpCount: 64 } as unknown as RuntimeFiber<unknown, unknown>

/**
 * No request ever arrives on the test's clock. (The scheduler's default is the process's own
 * arrivals, on `performance.now()`: stamped by any server an earlier file in this worker ran, and
 * on another clock than the test's.)
 */
const noRequests = () => -Infinity

/** A scheduler on a test clock whose requests arrive when the test says, with tasks that take the clock's time. */
const underLoad = (share: number) => {
  const at = { clock: 1_000, arrival: 1_000 }
  const scheduler = make(2, 0.05, () => at.clock, () => at.arrival, share)
  const ran: Array<string> = []
  /** A task that takes `ms` of the clock (after `first`, when given). */
  const task = (name: string, ms: number, first?: () => void) => () => {
    first?.()
    ran.push(name)
    at.clock += ms
  }
  /** A turn of the loop that served requests for 1 ms (one arrived at its end) before the scheduler's slice. */
  const servedTurn = async () => {
    at.clock += 1
    at.arrival = at.clock
    await nextTurn()
  }
  /** A turn that served nothing, 0.6 ms after the last request (within the load's memory: under load). */
  const idleTurn = async () => {
    at.clock += 0.001
    at.arrival = at.clock - 0.6
    await nextTurn()
  }
  return { at, scheduler, ran, task, servedTurn, idleTurn }
}

describe("the engine's scheduler", () => {
  it("gives a slice of 2 ms after a quiet turn, of 0.25 ms after a turn that served something else", async () => {
    let clock = 1_000
    const scheduler = make(2, 0.25, () => clock, noRequests)
    /** Whether a task that runs `at` ms into its slice is told to give way. */
    const yieldsAt = async (at: number, otherWork: number) => {
      let answer: unknown
      scheduler.scheduleTask(() => {
        clock += at
        answer = scheduler.shouldYield(fiber)
      }, 0)
      // what the loop does before the slice: the scheduled turn comes `otherWork` ms later
      clock += otherWork
      await nextTurn()
      return answer !== false
    }
    // quiet: the slice is 2 ms
    assert.isFalse(await yieldsAt(0.3, 0))
    assert.isFalse(await yieldsAt(1.9, 0.05))
    assert.isTrue(await yieldsAt(2.1, 0))
    // the turn served 1 ms of something else: the slice is 0.25 ms
    assert.isTrue(await yieldsAt(0.3, 1))
    assert.isFalse(await yieldsAt(0.2, 1))
    // quiet again: long again
    assert.isFalse(await yieldsAt(1.5, 0))
  })

  it("runs a fiber that gave way first on the next turn, before fibers woken since", async () => {
    let clock = 0
    const scheduler = make(2, 0.25, () => clock, noRequests)
    const ran: Array<string> = []
    scheduler.scheduleTask(() => {
      ran.push("a")
      clock += 3 // past its slice: the next woken task waits for the next turn
    }, 0)
    scheduler.scheduleTask(() => ran.push("b"), 0)
    await nextTurn()
    assert.deepStrictEqual(ran, ["a"])
    // `a` gave way (priority 1), `c` was woken since: `a`'s continuation runs first
    scheduler.scheduleTask(() => ran.push("c"), 0)
    scheduler.scheduleTask(() => ran.push("a again"), 1)
    await nextTurn()
    await nextTurn()
    assert.deepStrictEqual(ran, ["a", "a again", "b", "c"])
  })

  it("while requests arrive, runs only what its budget (a share of the time) pays for; without them, as much as a slice holds", async () => {
    const { at, scheduler, ran, task, servedTurn } = underLoad(0.1)
    // a full budget (2 ms): one task of 1 ms, the slice (0.05 ms) over with it
    scheduler.scheduleTask(task("a", 1), 0)
    scheduler.scheduleTask(task("b", 1.95), 0)
    await servedTurn()
    assert.deepStrictEqual(ran, ["a"])
    // 1 ms left, plus a tenth of the turn: b runs (1.95 ms) and overdraws it to -0.85 ms
    await servedTurn()
    assert.deepStrictEqual(ran, ["a", "b"])
    scheduler.scheduleTask(task("c", 0.01), 0)
    // each served turn of 1 ms pays 0.1 ms back: c waits for eight of them, runs on the ninth
    for (let turn = 1; turn <= 8; turn++) {
      await servedTurn()
      assert.deepStrictEqual(ran, ["a", "b"], `turn ${turn}`)
    }
    await servedTurn()
    assert.deepStrictEqual(ran, ["a", "b", "c"])
    // no request for longer than the load's memory: no budget, a quiet turn's slice is 2 ms
    at.clock += 10
    scheduler.scheduleTask(task("d", 1.5), 0)
    scheduler.scheduleTask(task("e", 0.6), 0)
    scheduler.scheduleTask(task("f", 0.4), 0)
    await nextTurn()
    assert.deepStrictEqual(ran, ["a", "b", "c", "d", "e"])
    await nextTurn()
    assert.deepStrictEqual(ran, ["a", "b", "c", "d", "e", "f"])
  })

  it("while requests arrive, runs free after a turn that served nothing, whatever its budget", async () => {
    const { at, scheduler, ran, task, servedTurn, idleTurn } = underLoad(0.02)
    // the budget overdrawn by a long task: served turns pay 0.02 ms each back, not enough to run
    scheduler.scheduleTask(task("long", 5), 0)
    await servedTurn()
    assert.deepStrictEqual(ran, ["long"])
    scheduler.scheduleTask(task("a", 0.01), 0)
    scheduler.scheduleTask(task("b", 0.01), 0)
    await servedTurn()
    await servedTurn()
    assert.deepStrictEqual(ran, ["long"])
    // a turn that served nothing: a free slice of 0.05 ms runs a and b although the budget is spent
    await idleTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b"])
    // and a free slice is never longer than a short one: c (0.06) outlasts it, d waits for the next idle turn
    scheduler.scheduleTask(task("c", 0.06), 0)
    scheduler.scheduleTask(task("d", 0.04), 0)
    await idleTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b", "c"])
    // a busy turn in between runs nothing (still overdrawn); nor does a short turn right after a
    // request (requests arriving back to back: the next one is due); the next idle one runs d
    await servedTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b", "c"])
    at.clock += 0.001
    at.arrival = at.clock - 0.1
    await nextTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b", "c"])
    // nor a turn that served something (1 ms), however long since the last request
    at.clock += 1
    at.arrival = at.clock - 0.6
    await nextTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b", "c"])
    await idleTurn()
    assert.deepStrictEqual(ran, ["long", "a", "b", "c", "d"])
  })

  it("an overdraft under load is paid back 1 ms of it at most; a task woken in a slice dates the next turn from the slice's end", async () => {
    const { at, scheduler, ran, task, servedTurn } = underLoad(0.1)
    // a task of 20 ms (one long operation) overdraws a full budget of 2 ms by 18: counted as 1
    scheduler.scheduleTask(task("long", 20), 0)
    await servedTurn()
    scheduler.scheduleTask(task("next", 0.01), 0)
    // a tenth of each 1 ms turn pays back 0.1 ms: ten turns pay 1 ms (not 180 for 18 ms)
    for (let turn = 1; turn <= 10; turn++) await servedTurn()
    assert.deepStrictEqual(ran, ["long"])
    await servedTurn()
    assert.deepStrictEqual(ran, ["long", "next"])
    // no load: a task that wakes another at its start and runs 3 ms, past its slice; the turn
    // after it served nothing (counted from the slice's end, not from the wake-up), so a long
    // slice follows: the woken task (1.5 ms) and the one after it run in it
    at.clock += 10
    let answer: unknown
    const probe = () => {
      answer = scheduler.shouldYield(fiber)
    }
    scheduler.scheduleTask(task("waker", 3, () => scheduler.scheduleTask(task("woken", 1.5, () => scheduler.scheduleTask(probe, 0)), 0)), 0)
    await nextTurn()
    assert.deepStrictEqual(ran, ["long", "next", "waker"])
    await nextTurn()
    assert.deepStrictEqual(ran, ["long", "next", "waker", "woken"])
    assert.isFalse(answer)
  })
})
