/**
 * A step of a lifecycle whose work the kit simulates (provisioning an endpoint, training a model:
 * infrastructure it does not have). In `timed` progression it is a durable timer of
 * `PLATFORM_STEP_SECONDS` (it survives a restart: the workflow resumes when it is due); in
 * `immediate` it completes at once. The step's visible effect is the activity that follows it.
 *
 * Imported by the families' `workflow.ts` only (loaded with the engine, docs/engine.md).
 */
import { DurableClock } from "@effect/workflow"
import { Context, Duration, Effect, Layer } from "effect"
import { Progression, StepSeconds } from "../config.js"

export class Simulation extends Context.Tag("@platform-kit/server/Simulation")<Simulation, {
  readonly progression: "timed" | "immediate"
  readonly step: Duration.Duration
}>() {
  /** From `PLATFORM_PROGRESSION` and `PLATFORM_STEP_SECONDS`. */
  static readonly layer = Layer.effect(
    Simulation,
    Effect.map(Effect.all([Progression, StepSeconds]), ([progression, seconds]) => ({
      progression,
      step: Duration.seconds(seconds)
    }))
  )
}

/** The simulated step `name` of the running workflow. */
export const simulatedStep = (name: string) =>
  Effect.flatMap(Simulation, (simulation) =>
    simulation.progression === "immediate"
      ? Effect.void
      // a stored timer even when short (the library keeps sleeps under a minute in memory)
      : DurableClock.sleep({ name, duration: simulation.step, inMemoryThreshold: Duration.zero }))
