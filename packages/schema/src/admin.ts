/**
 * The control plane for teams that test against the kit (docs/control-plane.md): how simulated
 * steps progress, which lifecycles fail on purpose, the steps parked for a manual advance, and
 * the engine's health. Served under `/admin` with the admin key only, never an account's key.
 */
import { Schema } from "effect"
import { DateTimeString, Optional } from "./common.js"

/**
 * How simulated steps progress: `timed` (each takes `step_seconds`), `immediate` (each completes
 * as soon as the engine runs it), `manual` (each waits, parked, until an admin advances it).
 */
export const Progression = Schema.Literal("timed", "immediate", "manual").annotations({ identifier: "Progression" })
export type Progression = typeof Progression.Type

/** The lifecycles whose simulated steps progression and fault rules apply to. */
export const LifecycleKind = Schema.Literal(
  "application_deployment",
  "fine_tuning_job",
  "model_deployment",
  "agent_runtime_deployment",
  "inference_model",
  "build"
).annotations({ identifier: "LifecycleKind" })
export type LifecycleKind = typeof LifecycleKind.Type

/** A share (0..1) of the lifecycles of one kind fail, at their first simulated step, with `reason`. */
export class LifecycleFault extends Schema.Class<LifecycleFault>("LifecycleFault")({
  lifecycle: LifecycleKind,
  share: Schema.Number.pipe(Schema.between(0, 1)),
  reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
}) {}

/**
 * A share (0..1, default 1) of the requests to the routes under `path_prefix` (of `method`, or
 * any) wait `latency_ms`, then are answered `status` (the contract's `{detail}` body) or served.
 */
export class RouteFault extends Schema.Class<RouteFault>("RouteFault")({
  method: Optional(Schema.Literal("GET", "POST", "PATCH", "PUT", "DELETE")),
  path_prefix: Schema.String.pipe(Schema.startsWith("/"), Schema.maxLength(1000)),
  share: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 1)), { exact: true, default: () => 1 }),
  latency_ms: Optional(Schema.Int.pipe(Schema.between(0, 60_000))),
  status: Optional(Schema.Int.pipe(Schema.between(400, 599)))
}) {}

const RouteFaults = Schema.Array(RouteFault).pipe(
  Schema.filter((faults) => faults.every((fault) => fault.latency_ms !== undefined || fault.status !== undefined), {
    message: () => "a route fault needs latency_ms, status or both"
  })
)

/** How the kit runs its simulated work now: what `GET /admin/controls` answers. */
export class Controls extends Schema.Class<Controls>("Controls")({
  progression: Progression,
  /** How long a simulated step takes in `timed` progression, in seconds. */
  step_seconds: Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(86_400)),
  /** At most one rule per lifecycle kind. */
  lifecycle_faults: Schema.Array(LifecycleFault).pipe(
    Schema.filter((faults) => new Set(faults.map((fault) => fault.lifecycle)).size === faults.length, {
      message: () => "at most one rule per lifecycle"
    })
  ),
  /** Checked in order: the first rule whose method and prefix match a request applies. */
  route_faults: RouteFaults
}) {}

/** `PATCH /admin/controls`: what is given changes, the rest stays. */
export class UpdateControls extends Schema.Class<UpdateControls>("UpdateControls")({
  progression: Optional(Progression),
  step_seconds: Optional(Schema.Number.pipe(Schema.positive(), Schema.lessThanOrEqualTo(86_400))),
  lifecycle_faults: Optional(Controls.fields.lifecycle_faults),
  route_faults: Optional(RouteFaults)
}) {}

/** A simulated step waiting for an advance (`manual` progression). */
export class ParkedStep extends Schema.Class<ParkedStep>("ParkedStep")({
  lifecycle: LifecycleKind,
  /** The entity the lifecycle moves (a deployment's, a job's id). */
  id: Schema.String,
  account_id: Schema.String,
  /** The step's name in its lifecycle (docs/engine.md: `provision`, `queue`, `epoch-1`, …). */
  step: Schema.String,
  parked_at: DateTimeString
}) {}

/** `POST /admin/parked-steps/advance`: the parked steps to complete, all of them when nothing is named. */
export class AdvanceSteps extends Schema.Class<AdvanceSteps>("AdvanceSteps")({
  lifecycle: Optional(LifecycleKind),
  id: Optional(Schema.String)
}) {}

/** The steps an advance completed. */
export class AdvancedSteps extends Schema.Class<AdvancedSteps>("AdvancedSteps")({
  advanced: Schema.Array(ParkedStep)
}) {}

/** The workflow engine as an admin sees it (`GET /admin/engine`). */
export class EngineHealth extends Schema.Class<EngineHealth>("EngineHealth")({
  /** `loading` until the engine runs (it loads a second after start, or at the first lifecycle). */
  status: Schema.Literal("loading", "running", "failed"),
  /** Workflow executions started and not finished (running, or waiting on a timer or an advance). */
  running: Schema.Int,
  /** Steps parked for an advance (`manual` progression). */
  parked: Schema.Int,
  /** Workflow executions that ended in failure (a defect of the kit: a lifecycle's own failure is a state of its entity). */
  failed: Schema.Int
}) {}

/** What `POST /admin/reset` emptied. */
export class ResetResult extends Schema.Class<ResetResult>("ResetResult")({
  /** The tables emptied (every table of the kit's data). */
  tables: Schema.Int,
  /** The rows deleted from them. */
  deleted_rows: Schema.Int
}) {}
