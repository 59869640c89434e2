/**
 * Span timestamps. The SDK tracer sends Python's `isoformat()` (microseconds, `+00:00`); the kit
 * answers UTC with a `Z`, keeping the microseconds when there are any, and stores the instant as
 * epoch milliseconds plus the microseconds within the millisecond (JavaScript numbers hold both
 * exactly for every year 0000–9999).
 */

export interface Instant {
  /** Epoch milliseconds (what `Date.parse` gives: the fraction cut at the millisecond). */
  readonly ms: number
  /** The microseconds within that millisecond, 0–999. */
  readonly us: number
  /** The instant as the kit answers it: `2026-12-07T12:45:14.123Z`, or `….123456Z`. */
  readonly iso: string
}

const fraction = /T[^.]*\.(\d+)/

/** The UTC text of `ms` and the microseconds `us` past it (the microseconds kept only when there are some). */
export const isoOfParts = (ms: number, us: number) => {
  const millisecondsIso = new Date(ms).toISOString()
  return us === 0 ? millisecondsIso : `${millisecondsIso.slice(0, -1)}${String(us).padStart(3, "0")}Z`
}

/** The instant of an ISO 8601 text the Schema already accepted (`DateTimeString`). */
export const instantOf = (text: string): Instant => {
  const ms = Date.parse(text)
  const digits = fraction.exec(text)?.[1] ?? ""
  const us = Number(digits.slice(3, 6).padEnd(3, "0"))
  return { ms, us, iso: isoOfParts(ms, us) }
}

/**
 * `end` minus `start` in microseconds, from 0 (an end within the start's millisecond but before
 * it, which the Schema's millisecond check lets through) to 2^53 − 1.
 */
export const durationUs = (start: Instant, end: Instant): number =>
  Math.max(0, Math.min((end.ms - start.ms) * 1000 + (end.us - start.us), Number.MAX_SAFE_INTEGER))
