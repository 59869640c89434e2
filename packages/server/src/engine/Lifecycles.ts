/**
 * The kit's background work: every lifecycle that moves by itself runs as a durable workflow of
 * `@effect/workflow` on `@effect/cluster` (docs/engine.md), whose storage is the server's own
 * database. Handlers start one through `Lifecycles` and return; the workflow's steps (activities)
 * write the states a poller sees.
 *
 * The engine is loaded lazily: importing `@effect/cluster` and `@effect/workflow` costs about a
 * second unbundled (0.15 s bundled), as much as the whole cold start of the server.
 * `Lifecycles.lazy` imports the module that composes the engine and the families' workflows
 * (`../workflows.ts`) in the background a second after the application is up, or at the first
 * `start`, builds it in the application's scope (so it stops with the server: running steps
 * finish first), and makes `start` wait for it: a request that starts a lifecycle in the first
 * moments of a process waits until the engine runs; every other request never does.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Clock, Context, Deferred, Effect, ExecutionStrategy, Exit, Fiber, Layer, Option, Ref, Schedule, Schema, Scope } from "effect"
import type { Workflow } from "@effect/workflow"
import { BackgroundSql } from "../sql/database.js"
import { isConcurrentDdl } from "../sql/errors.js"
import * as BackgroundScheduler from "./backgroundScheduler.js"

/**
 * The entity a lifecycle moves: the payload of every workflow (`Workflow.make({ payload })`).
 * `run` tells the runs of one entity apart when it can go through its lifecycle again (an
 * application deployment activated anew): absent for the first.
 */
export const LifecycleEntity = {
  id: Schema.String,
  account_id: Schema.String,
  run: Schema.optionalWith(Schema.Int, { exact: true })
}
export type LifecycleEntity = Schema.Struct.Type<typeof LifecycleEntity>

/** The workflow execution of one run of an entity's lifecycle: its id, then `#run` past the first. */
export const lifecycleKey = (entity: LifecycleEntity) =>
  entity.run === undefined || entity.run === 0 ? entity.id : `${entity.id}#${entity.run}`

/**
 * What a handler asks for: the lifecycle of one entity, by the name of its workflow (as the
 * family that runs it names it in its `FamilyWorkflows`). Starting it again is a no-op.
 */
export interface LifecycleStart extends LifecycleEntity {
  readonly workflow: string
}

/**
 * What a family gives the engine (its `workflow.ts`, listed in `../workflows.ts`): its workflows by
 * the names its handlers start them with, and the layer that implements them (with the start of
 * the lifecycles left unfinished, `startOnBoot`), needing only the application's services.
 */
export interface FamilyWorkflows<R = any> {
  readonly workflows: Readonly<Record<string, Workflow.Workflow<string, Schema.Struct<typeof LifecycleEntity>, any, any>>>
  readonly layer: Layer.Layer<never, unknown, R>
}

/**
 * What the lazily loaded module gives: the engine with every workflow, and how to start one. `R`
 * is what its workflows take from the application (its database, ids, simulation and the shared
 * services the composition names), so that requests and background work share one of each.
 */
export interface EngineModule<R = any> {
  /** The engine and the families' workflows, over the database of the application. */
  readonly layer: Layer.Layer<any, unknown, R>
  /** Starts a lifecycle on the engine the layer built; returns once it is stored. */
  readonly start: (request: LifecycleStart) => Effect.Effect<void, never, any>
  /** Completes the parked step of `token` (engine/simulatedStep.ts, `manual` progression). */
  readonly advance: (token: string) => Effect.Effect<void, never, any>
}

/** How long after the application is up the engine loads when nothing asked for it sooner. */
const loadDelay = "1 second"

/** How long a close waits for a build of the engine in progress to end (ms). */
const buildEndMillis = 15_000

/** The engine keeps wall time (its timers, leases, polls), whatever clock the caller has (a test's TestClock). */
const wallClock = Clock.make()

/**
 * Builds the engine in a scope of its own under `scope`, closed again when the build fails.
 * The library's table creation fails as a defect: the cause is the error, so that it is retried.
 */
const build = (layer: EngineModule["layer"], scope: Scope.Scope) =>
  Effect.gen(function*() {
    const attempt = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    return yield* Layer.buildWithScope(layer, attempt).pipe(
      Effect.onError((cause) => Scope.close(attempt, Exit.failCause(cause)))
    )
  }).pipe(Effect.sandbox)

/**
 * How often a start that failed is tried again: soon at first (a race with another process
 * creating the engine's tables is over by then), then every 30 s at most, for as long as the
 * server runs (a database that comes back later lets the engine start then).
 */
const retrying = Schedule.union(Schedule.jittered(Schedule.exponential("100 millis")), Schedule.spaced("30 seconds"))

/** The scheduler of the engine's fibers: slices of the event loop that give way to requests. */
const background = BackgroundScheduler.make()

export class Lifecycles extends Context.Tag("@platform-kit/server/Lifecycles")<Lifecycles, {
  /** Starts the lifecycle of one entity (durably: it runs to its end even across restarts). */
  readonly start: (request: LifecycleStart) => Effect.Effect<void>
  /** Completes the parked steps of `tokens` (loading the engine first if need be; none: nothing to wait for). */
  readonly advance: (tokens: ReadonlyArray<string>) => Effect.Effect<void>
  /** Whether the engine runs yet: `loading` until it does, `failed` while its start fails (it is tried again). */
  readonly status: Effect.Effect<"loading" | "running" | "failed">
}>() {
  /**
   * The engine of the module `load` imports, loaded and built in the background in this layer's
   * scope. Needs the application's `SqlClient` (or `BackgroundSql` when given) and what the
   * module's workflows take from the application (`R`). If it cannot start, the failure is logged
   * and the start tried again (`retrying`); meanwhile a `start` returns at once (the entity is
   * stored: its lifecycle starts with the engine, as every family's workflows start the
   * unfinished ones), and an `advance` dies.
   */
  static readonly lazy = <R>(
    load: () => Promise<EngineModule<R>>
  ): Layer.Layer<Lifecycles, never, R | SqlClient.SqlClient> =>
    Layer.scoped(
      Lifecycles,
      Effect.gen(function*() {
        const scope = yield* Effect.scope
        // the engine is built in a scope made before the loader's fiber: at a close the loader is
        // interrupted first (a build in progress stops), then what it built closes
        const builds = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        // on PostgreSQL the engine and its steps have a pool of their own (sql/database.ts)
        const application = yield* Effect.context<R | SqlClient.SqlClient>()
        const services = Option.match(yield* Effect.serviceOption(BackgroundSql), {
          onNone: () => application,
          onSome: (sql) => Context.add(application, SqlClient.SqlClient, sql)
        })
        const ready = yield* Deferred.make<{ readonly module: EngineModule; readonly context: Context.Context<any> }>()
        const requested = yield* Deferred.make<void>()
        // completed by the first failed start: whoever waits for the engine stops waiting then
        const faltered = yield* Deferred.make<void>()
        const failing = yield* Ref.make(false)
        // whether the engine's layer is being built, and whether the layer is closing (no new try then)
        let building = false
        let closing = false
        // the engine loads `loadDelay` after the application is up (its first requests answered
        // meanwhile: loading is a few hundred ms of the event loop), or at once when asked for
        const loader = yield* Effect.race(Effect.sleep(loadDelay), Deferred.await(requested)).pipe(
          Effect.zipRight(Effect.sandbox(Effect.tryPromise(load))),
          Effect.flatMap((module) =>
            Effect.suspend(() => {
              building = true
              return Effect.map(build(module.layer, builds), (context) => ({ module, context }))
            }).pipe(Effect.ensuring(Effect.sync(() => building = false)))
          ),
          Effect.tapError((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.void
              // processes starting together on one PostgreSQL database race to create the
              // engine's tables (`CREATE TABLE IF NOT EXISTS` is not safe under concurrency
              // there): the losers find them made on their next try, soon
              : isConcurrentDdl(Cause.squash(cause))
              ? Effect.logDebug("the workflow engine's tables were being created by another process; trying again", cause)
              : Effect.all([
                Effect.logError("the workflow engine did not start; trying again", cause),
                Ref.set(failing, true),
                Deferred.succeed(faltered, undefined)
              ])
          ),
          Effect.retry({ schedule: retrying, while: (cause) => !Cause.isInterruptedOnly(cause) && !closing }),
          Effect.provide(services),
          Effect.withClock(wallClock),
          Effect.flatMap((loaded) => Effect.zipRight(Ref.set(failing, false), Deferred.succeed(ready, loaded))),
          // closed while loading: whoever waits for the engine is interrupted too, not left waiting
          Effect.onInterrupt(() => Deferred.interrupt(ready)),
          Effect.catchAllCause((cause) => Effect.logError("the workflow engine stopped starting", cause)),
          // the engine's fibers (and those they fork) run in small slices that give way to I/O
          Effect.withScheduler(background),
          Effect.forkIn(scope)
        )
        // at a close, a build in progress ends first (then what it built closes, in order, as after
        // any start): interrupted half-way, its layers' finalizers ran amid a half-made engine, and
        // one of them could wait for good (a test server's close hung so under load). A build that
        // has not ended after `buildEndMillis` is interrupted all the same.
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            closing = true
            // interruptible inside the finalizer: the time-out can stop the wait
            return building ? Effect.ignore(Effect.interruptible(Effect.timeout(Fiber.await(loader), buildEndMillis))) : Effect.void
          }).pipe(Effect.withClock(wallClock))
        )
        /** The engine, once it runs; none when its start has failed and it does not run yet. */
        const engine = Effect.zipRight(
          Deferred.succeed(requested, undefined),
          Effect.raceFirst(Effect.asSome(Deferred.await(ready)), Effect.as(Deferred.await(faltered), Option.none()))
        ).pipe(
          // a start that failed and then succeeded: ready now
          Effect.flatMap((found) => Option.isSome(found) ? Effect.succeed(found) : Deferred.poll(ready).pipe(
            Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: Effect.asSome }))
          ))
        )
        return {
          start: (request) =>
            Effect.flatMap(engine, Option.match({
              onNone: () =>
                Effect.logWarning(
                  `the workflow engine does not run: the lifecycle of ${request.workflow} ${request.id} starts when it does`
                ),
              onSome: ({ context, module }) => Effect.provide(module.start(request), context).pipe(Effect.withClock(wallClock))
            })),
          advance: (tokens) =>
            tokens.length === 0 ? Effect.void : Effect.flatMap(engine, Option.match({
              onNone: () => Effect.die(new Error("the workflow engine does not run")),
              onSome: ({ context, module }) =>
                Effect.forEach(tokens, (token) => Effect.provide(module.advance(token), context), { discard: true }).pipe(
                  Effect.withClock(wallClock)
                )
            })),
          status: Effect.flatMap(Deferred.isDone(ready), (done) =>
            done
              ? Effect.succeed("running" as const)
              : Effect.map(Ref.get(failing), (failed) => (failed ? "failed" as const : "loading" as const)))
        }
      })
    )
}
