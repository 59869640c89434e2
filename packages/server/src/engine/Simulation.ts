/**
 * How the kit runs the work it simulates (docs/control-plane.md): the progression of simulated
 * steps, how long a `timed` one takes, and the fault rules that make a share of a lifecycle kind
 * fail, and the faults injected on routes. Read from the environment at start
 * (`PLATFORM_PROGRESSION`, `PLATFORM_STEP_SECONDS`, `PLATFORM_LIFECYCLE_FAULTS`,
 * `PLATFORM_ROUTE_FAULTS`), changed at run time by the control plane. Each process holds them (a
 * step and a request read them without a query); a change is also written to the database
 * (`platform_controls`, migration 0030, one row with a version), and every process on that
 * database takes the changes made after its start within a second. A restart starts again from
 * the environment (docs/control-plane.md).
 *
 * Whether an entity's lifecycle fails is a function of its id and the rule (a hash of the id
 * below the rule's share), not a draw: a step replayed after a restart decides the same.
 */
import { Controls, type LifecycleFault, type LifecycleKind, type RouteFault, type UpdateControls } from "@platform-kit/schema"
import { SqlClient } from "@effect/sql"
import { Clock, ConfigError, Context, Effect, Either, Layer, Option, ParseResult, Ref, Schedule, Schema } from "effect"
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

const decodeControls = Schema.decodeUnknownEither(Schema.parseJson(Controls))
const encodeControls = (controls: Controls) => JSON.stringify(Schema.encodeSync(Controls)(controls))

export class Simulation extends Context.Tag("@platform-kit/server/Simulation")<Simulation, {
  readonly controls: Effect.Effect<Controls>
  readonly update: (change: UpdateControls) => Effect.Effect<Controls>
  /** The reason the lifecycle of `id` (of kind `lifecycle`) fails by the fault rules now, if it does. */
  readonly faultOf: (lifecycle: LifecycleKind, id: string) => Effect.Effect<string | null>
  /** The route faults now, read without an effect: the request path checks them on every request. */
  readonly routeFaults: () => ReadonlyArray<RouteFault>
}>() {
  /**
   * Starting as the environment says (a malformed `PLATFORM_LIFECYCLE_FAULTS` stops the start);
   * then following the changes the control plane makes on any process of the database.
   */
  static readonly layer = Layer.scoped(
    Simulation,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [progression, step_seconds, lifecycles, routes] = yield* Effect.all([Progression, StepSeconds, LifecycleFaults, RouteFaults])
      const lifecycle_faults = Option.getOrElse(
        yield* fromJson("PLATFORM_LIFECYCLE_FAULTS", Controls.fields.lifecycle_faults, lifecycles),
        (): ReadonlyArray<LifecycleFault> => []
      )
      const route_faults = Option.getOrElse(
        yield* fromJson("PLATFORM_ROUTE_FAULTS", Controls.fields.route_faults, routes),
        (): ReadonlyArray<RouteFault> => []
      )
      const state = yield* Ref.make(new Controls({ progression, step_seconds, lifecycle_faults, route_faults }, true))
      // the request path's copy, kept with the state
      let currentRouteFaults = route_faults
      const adopt = (controls: Controls) =>
        Effect.zipRight(Ref.set(state, controls), Effect.sync(() => (currentRouteFaults = controls.route_faults)))

      /** The stored change, if any (none before the first change, or before the migration ran). */
      const stored = sql<{ version: number; controls: string }>`SELECT version, controls FROM platform_controls WHERE id = 1`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.catchAll(() => Effect.succeedNone)
      )
      // the changes made before this process started are not its: it starts from the environment
      let seen = Option.match(yield* stored, { onNone: () => 0, onSome: (row) => Number(row.version) })
      const follow = Effect.flatMap(stored, (row) => {
        if (Option.isNone(row) || Number(row.value.version) <= seen) return Effect.void
        seen = Number(row.value.version)
        return Either.match(decodeControls(row.value.controls), {
          onLeft: (error) => Effect.logWarning("the stored controls do not decode; kept as they were", error),
          onRight: adopt
        })
      })
      yield* Effect.forkScoped(Effect.repeat(follow, Schedule.spaced("1 second")).pipe(Effect.withClock(Clock.make())))

      return {
        controls: Ref.get(state),
        update: (change) =>
          Effect.gen(function*() {
            const current = yield* Ref.get(state)
            const next = new Controls({
              progression: change.progression ?? current.progression,
              step_seconds: change.step_seconds ?? current.step_seconds,
              lifecycle_faults: change.lifecycle_faults ?? current.lifecycle_faults,
              route_faults: change.route_faults ?? current.route_faults
            }, true)
            yield* adopt(next)
            const text = encodeControls(next)
            // the other processes take it at their next look; this one has it already
            const rows = yield* sql<{ version: number }>`INSERT INTO platform_controls (id, version, controls) VALUES (1, 1, ${text})
              ON CONFLICT (id) DO UPDATE SET version = platform_controls.version + 1, controls = ${text}
              RETURNING version`.pipe(
                Effect.catchAll((error) => Effect.as(Effect.logWarning("the controls were not shared with other processes", error), []))
              )
            if (rows[0] !== undefined) seen = Math.max(seen, Number(rows[0].version))
            return next
          }),
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
