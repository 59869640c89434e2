/**
 * When a run schedule fires (docs/agent-tasks.md "Run schedules"): the times of its cadence, a
 * cron expression in its time zone (`effect/Cron`) or every `interval_seconds` counted from the
 * Unix epoch (as Temporal's intervals are: every process computes the same instants, whole
 * seconds), inside its `start_at`/`end_at` window. Pure: the handlers and the firing loop share it.
 */
import { Cron, Either } from "effect"

/** What a schedule's times depend on. */
export interface Cadence {
  readonly cron_expression: string | null
  readonly interval_seconds: number | null
  readonly timezone: string
  readonly start_at: string | null
  readonly end_at: string | null
}

/** Parsed cron expressions by expression and zone (a fire must be cheap: parsed once per process). */
const parsed = new Map<string, Cron.Cron | null>()

const cronOf = (expression: string, zone: string): Cron.Cron | null => {
  const key = `${zone}\u0000${expression}`
  let cron = parsed.get(key)
  if (cron === undefined) {
    const result = Cron.parse(expression, zone)
    cron = Either.isRight(result) ? result.right : null
    if (parsed.size > 10_000) parsed.clear()
    parsed.set(key, cron)
  }
  return cron
}

/** Whether `expression` parses in `zone` (the schema checked it in UTC; a zone never makes it invalid, but a cron is re-checked). */
export const cronValid = (expression: string, zone: string) => cronOf(expression, zone) !== null

/** The first time of the cadence strictly after `afterMs` and not before `start_at` (epoch ms); `null` when none is left before `end_at`. */
export const cadenceAfter = (cadence: Cadence, afterMs: number): number | null => {
  const start = cadence.start_at === null ? -Infinity : Date.parse(cadence.start_at)
  const end = cadence.end_at === null ? Infinity : Date.parse(cadence.end_at)
  // the first time at or after `start_at`
  const from = Math.max(afterMs, start - 1)
  let next: number | null = null
  if (cadence.interval_seconds !== null) {
    const every = cadence.interval_seconds * 1000
    next = (Math.floor(from / every) + 1) * every
  } else if (cadence.cron_expression !== null) {
    const cron = cronOf(cadence.cron_expression, cadence.timezone)
    if (cron === null) return null
    // a cron that parses but never matches (`0 0 30 2 *`): effect's `Cron.next` throws; no time
    try {
      next = Cron.next(cron, new Date(from)).getTime()
    } catch {
      return null
    }
  }
  return next === null || next > end ? null : next
}

/** The next `count` times after `afterMs`, the skipped ones (epoch ms) left out. */
export const upcoming = (cadence: Cadence, afterMs: number, count: number, skipped: ReadonlySet<number> = new Set()) => {
  const times: Array<number> = []
  let at: number | null = afterMs
  // a cadence whose every time is skipped ends the search (skips are few: bounded by what was asked)
  for (let guard = 0; times.length < count && guard < count + skipped.size + 1; guard++) {
    at = cadenceAfter(cadence, at)
    if (at === null) break
    if (!skipped.has(at)) times.push(at)
  }
  return times
}

/**
 * The times of the cadence due at `nowMs`, from `nominalMs` (a time of the cadence, due) on, oldest
 * first, and the time after them: what the firing loop stores and where it moves the schedule.
 * Only the last `windowMs` matter (older times are neither fired nor stored): a process down for
 * long starts its walk just before the window, so a walk is at most one window long (a per-second
 * cron after a day of downtime: `windowMs` steps, not 86,400). `maxSteps` bounds the walk still
 * (past it, no time is due and the schedule moves to the first time after `nowMs`).
 */
export const dueTimes = (cadence: Cadence, nominalMs: number, nowMs: number, windowMs: number, maxSteps = 100_000) => {
  const times: Array<number> = []
  let at = nowMs - nominalMs > windowMs ? cadenceAfter(cadence, Math.max(nominalMs, nowMs - windowMs - 1)) : nominalMs
  for (let step = 0; at !== null && at <= nowMs; step++) {
    if (step === maxSteps) return { times: [], next: cadenceAfter(cadence, nowMs) }
    times.push(at)
    at = cadenceAfter(cadence, at)
  }
  return { times, next: at }
}

/** An instant (epoch ms) as the schedules store it: ISO 8601 in UTC. */
export const iso = (ms: number) => new Date(ms).toISOString()

/** An instant as the fire ids write it: ISO 8601 in UTC to the second (`2026-06-23T15:19:00Z`). */
export const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")
