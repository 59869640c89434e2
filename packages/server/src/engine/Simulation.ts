/**
 * How the kit runs the work it simulates (docs/control-plane.md): the progression of simulated
 * steps, how long a `timed` one takes, and the fault rules that make a share of a lifecycle kind
 * fail, and the faults injected on routes. Read from the environment at start
 * (`PLATFORM_PROGRESSION`, `PLATFORM_STEP_SECONDS`, `PLATFORM_LIFECYCLE_FAULTS`,
 * `PLATFORM_ROUTE_FAULTS`), changed at run time by the control plane. Held by each process:
 * with N instances, the control plane's changes apply to the instance that took them.
 *
 * Whether an entity's lifecycle fails is a function of its id and the rule (a hash of the id
 * below the rule's share), not a draw: a step replayed after a restart decides the same.
 */
import { Controls, type LifecycleFault, type LifecycleKind, type RouteFault, type UpdateControls } from "@platform-kit/schema"
import { ConfigError, Context, Effect, Either, Layer, Option, ParseResult, Ref, Schema } from "effect"
import * as Crypto from "node:crypto"
import { LifecycleFaults, Progression, RouteFaults, StepSeconds } from "../config.js"

/** Where `id` falls in [0, 1): the first 32 bits of its SHA-256. */
const position = (id: string) => Crypto.createHash("sha256").update(id).digest().readUInt32BE(0) / 2 ** 32

/** The value of the variable `name`, decoded as JSON by `schema` (none when unset; a malformed one is a config error). */
const fromJson = <A, I>(name: string, schema: Schema.Schema<A, I>, value: Option.Option<string>) =>
  Option.isNone(value) ? Effect.succeed(Option.none<A>()) : Either.match(Schema.decodeUnknownEither(Schema.parseJson(schema))(value.value), {
    onLeft: (error) => Effect.fail(ConfigError.InvalidData([name], ParseResult.TreeFormatter.formatErrorSync(error))),
    onRight: (decoded) => Effect.succeed(Option.some(decoded))
  })

export class Simulation extends Context.Tag("@platform-kit/server/Simulation")<Simulation, {
  readonly controls: Effect.Effect<Controls>
  readonly update: (change: UpdateControls) => Effect.Effect<Controls>
  /** The reason the lifecycle of `id` (of kind `lifecycle`) fails by the fault rules now, if it does. */
  readonly faultOf: (lifecycle: LifecycleKind, id: string) => Effect.Effect<string | null>
  /** The route faults now, read without an effect: the request path checks them on every request. */
  readonly routeFaults: () => ReadonlyArray<RouteFault>
}>() {
  /** Starting as the environment says (a malformed `PLATFORM_LIFECYCLE_FAULTS` stops the start). */
  static readonly layer = Layer.effect(
    Simulation,
    Effect.gen(function*() {
      const [progression, step_seconds, lifecycles, routes] = yield* Effect.all([Progression, StepSeconds, LifecycleFaults, RouteFaults])
      const lifecycle_faults = Option.getOrElse(
        yield* fromJson("PLATFORM_LIFECYCLE_FAULTS", Controls.fields.lifecycle_faults, lifecycles),
        (): ReadonlyArray<LifecycleFault> => []
      )
      const route_faults = Option.getOrElse(
        yield* fromJson("PLATFORM_ROUTE_FAULTS", Controls.fields.route_faults, routes),
        (): ReadonlyArray<RouteFault> => []
      )
      const state = yield* Ref.make(new Controls({ progression, step_seconds, lifecycle_faults, route_faults }))
      // the request path's copy, kept with the state
      let currentRouteFaults = route_faults
      return {
        controls: Ref.get(state),
        update: (change) =>
          Ref.updateAndGet(state, (current) =>
            new Controls({
              progression: change.progression ?? current.progression,
              step_seconds: change.step_seconds ?? current.step_seconds,
              lifecycle_faults: change.lifecycle_faults ?? current.lifecycle_faults,
              route_faults: change.route_faults ?? current.route_faults
            })).pipe(Effect.tap((controls) => Effect.sync(() => (currentRouteFaults = controls.route_faults)))),
        faultOf: (lifecycle, id) =>
          Effect.map(Ref.get(state), (current) => {
            const rule = current.lifecycle_faults.find((fault) => fault.lifecycle === lifecycle)
            return rule !== undefined && position(id) < rule.share ? rule.reason : null
          }),
        routeFaults: () => currentRouteFaults
      }
    })
  )
}
