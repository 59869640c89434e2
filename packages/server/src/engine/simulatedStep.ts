/**
 * A step of a lifecycle whose work the kit simulates (provisioning an endpoint, training a model:
 * infrastructure it does not have), run as the control plane's settings say (`Simulation`,
 * docs/control-plane.md). In `timed` progression it is a durable timer of the step's seconds (it
 * survives a restart: the workflow resumes when it is due); in `immediate` it completes at once;
 * in `manual` it parks (a row of `ParkedSteps`) and waits on a durable deferred that the control
 * plane's advance completes. Answers the reason the fault rules make the lifecycle fail with, or
 * null: the family's workflow then writes its failed state instead of the step's visible effect.
 *
 * Imported by the families' `workflow.ts` only (loaded with the engine, docs/engine.md).
 */
import { Activity, DurableClock, DurableDeferred } from "@effect/workflow"
import { type LifecycleKind, Progression } from "@platform-kit/schema"
import { Duration, Effect, Schema } from "effect"
import type { LifecycleEntity } from "./Lifecycles.js"
import { ParkedSteps } from "./ParkedSteps.js"
import { Simulation } from "./Simulation.js"

/** The deferred a parked step waits on; its name comes with the token, so one serves to complete any. */
export const advanceDeferred = (step: string) => DurableDeferred.make(`advance-${step}`)

/** What a step runs as, decided once (a step replayed when its workflow resumes runs as it did first). */
const StepPlan = Schema.Struct({
  progression: Progression,
  seconds: Schema.Number,
  fault: Schema.NullOr(Schema.String)
})

/** The simulated step `name` of the running workflow, the lifecycle of `entity` (of kind `lifecycle`). */
export const simulatedStep = (name: string, lifecycle: LifecycleKind, entity: LifecycleEntity) =>
  Effect.gen(function*() {
    const simulation = yield* Simulation
    // the common case, `immediate` with no fault rule: nothing to wait for or decide, and nothing
    // recorded (a plan costs the engine an activity, which doubled the time of a burst of
    // lifecycles: docs/benchmarks.md "The engine's scheduler"). A step replayed after the controls
    // changed may then wait or park once more; its visible effect, the activity after it, still
    // happens once.
    const now = yield* simulation.controls
    if (now.progression === "immediate" && !now.lifecycle_faults.some((fault) => fault.lifecycle === lifecycle)) return null
    const plan = yield* Activity.make({
      name: `plan-${name}`,
      success: StepPlan,
      execute: Effect.zipWith(simulation.controls, simulation.faultOf(lifecycle, entity.id), (controls, fault) => ({
        progression: controls.progression,
        seconds: controls.step_seconds,
        fault
      }))
    })
    if (plan.progression === "timed") {
      // a stored timer even when short (the library keeps sleeps under a minute in memory)
      yield* DurableClock.sleep({ name, duration: Duration.seconds(plan.seconds), inMemoryThreshold: Duration.zero })
    } else if (plan.progression === "manual") {
      const deferred = advanceDeferred(name)
      const token = yield* DurableDeferred.token(deferred)
      const parked = yield* ParkedSteps
      // parked, then the progression read again: a step that parks just as a PATCH leaves
      // `manual` (whose advance of every parked step may have missed it) goes on by itself
      const waits = yield* Activity.make({
        name: `park-${name}`,
        success: Schema.Boolean,
        execute: Effect.gen(function*() {
          // an entity gone (deleted, reset) parks nothing: the step goes on, the lifecycle ends
          if (!(yield* parked.park({ lifecycle, id: entity.id, account_id: entity.account_id, step: name }, token))) return false
          if ((yield* simulation.controls).progression === "manual") return true
          yield* parked.remove([token])
          return false
        })
      })
      if (waits) yield* DurableDeferred.await(deferred)
    }
    return plan.fault
  })
