/**
 * When the standalone server last took in a request (fast/server.ts stamps each one as it arrives),
 * read by the workflow engine's scheduler (engine/backgroundScheduler.ts) to give requests the
 * time they need: one number per process, as the event loop and the scheduler are. A program
 * that serves the API another way stamps nothing: its workflow engine runs as if no request came.
 */
import { performance } from "node:perf_hooks"

let lastArrival = -Infinity

/** A request arrived now. */
export const requestArrived = (): void => {
  lastArrival = performance.now()
}

/** When the last request arrived (the monotonic clock of `performance.now()`, ms; -Infinity before the first). */
export const lastRequestArrival = (): number => lastArrival
