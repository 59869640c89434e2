/**
 * The control plane (docs/control-plane.md): `x-admin-key` must be `PLATFORM_ADMIN_KEY`, compared
 * in constant time; no account key opens it, and without `PLATFORM_ADMIN_KEY` every endpoint is
 * a 404, as if the routes did not exist.
 */
import { SqlClient } from "@effect/sql"
import { AdminAuthentication } from "@platform-kit/api"
import { AdvancedSteps, EngineHealth, NotFound, ResetResult, Unauthorized } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { bootstrap } from "../bootstrap.js"
import { AdminKey, BootstrapKey } from "../config.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { ParkedSteps } from "../engine/ParkedSteps.js"
import { ModelUsageRepo } from "../models/usage/ModelUsageRepo.js"
import { Simulation } from "../engine/Simulation.js"
import type { ImplementGroup } from "../http/groups.js"
import { dataTables, isDeadlock, lockTables } from "../sql/dialect.js"

const digest = (text: string) => Crypto.createHash("sha256").update(text).digest()

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.map(AdminKey, (configured) => {
    const off = Effect.fail(new NotFound({ detail: "Not Found" }))
    if (Option.isNone(configured)) return { adminKey: () => off }
    const expected = digest(Redacted.value(configured.value))
    const missing = Effect.fail(new Unauthorized({ detail: "Missing admin key: send it in the x-admin-key header" }))
    const invalid = Effect.fail(new Unauthorized({ detail: "Invalid admin key" }))
    return {
      adminKey: (key: Redacted.Redacted<string>) => {
        const given = Redacted.value(key)
        if (given.length === 0) return missing
        return Crypto.timingSafeEqual(digest(given), expected) ? Effect.void : invalid
      }
    }
  })
)

/**
 * Workflow executions in the engine's storage (`cluster_messages`, `cluster_replies`): a run
 * without a `Complete` reply is running (or suspended, waiting on a timer or an advance); one whose
 * reply completes it with a failure has failed. 0 before the engine made its tables.
 */
const engineCounts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const complete = '%"_tag":"Complete"%'
  const failure = '%"_tag":"Complete","exit":{"_tag":"Failure"%'
  const running = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM cluster_messages m
    WHERE m.entity_type LIKE 'Workflow/%' AND m.tag = 'run'
    AND NOT EXISTS (SELECT 1 FROM cluster_replies r WHERE r.request_id = m.id AND r.payload LIKE ${complete})`
  const failed = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM cluster_messages m
    WHERE m.entity_type LIKE 'Workflow/%' AND m.tag = 'run'
    AND EXISTS (SELECT 1 FROM cluster_replies r WHERE r.request_id = m.id AND r.payload LIKE ${failure})`
  return { running: Number(running[0]?.n ?? 0), failed: Number(failed[0]?.n ?? 0) }
}).pipe(
  Effect.catchAll((error) =>
    Effect.as(Effect.logWarning("engine health: the engine's storage could not be read (0 reported)", error), { running: 0, failed: 0 })
  )
)

export const AdminHttp = (group: ImplementGroup) =>
  group("admin", (handlers) =>
  Effect.gen(function*() {
    const simulation = yield* Simulation
    const parked = yield* ParkedSteps
    const lifecycles = yield* Lifecycles
    const sql = yield* SqlClient.SqlClient
    const usage = yield* ModelUsageRepo
    /** Completes the parked steps `filter` names (all when it names none). */
    const advance = (filter: { readonly lifecycle?: string | undefined; readonly id?: string | undefined }) =>
      Effect.gen(function*() {
        const found = yield* parked.find(filter)
        const tokens = found.map((step) => step.token)
        yield* lifecycles.advance(tokens)
        yield* parked.remove(tokens)
        return new AdvancedSteps({ advanced: found.map((step) => step.step) }, true)
      })
    return handlers
      .handle("getControls", () => simulation.controls)
      .handle("updateControls", ({ payload }) =>
        Effect.gen(function*() {
          const controls = yield* simulation.update(payload)
          // leaving `manual`: the steps parked meanwhile go on, as the new progression would run
          // them (if the engine does not run, they stay parked, to be advanced later)
          if (controls.progression !== "manual") {
            yield* advance({}).pipe(
              Effect.catchAllDefect((defect) => Effect.logWarning("the parked steps stay parked", defect))
            )
          }
          return controls
        }))
      .handle("listParkedSteps", () => parked.list)
      .handle("advanceParkedSteps", ({ payload }) => advance(payload))
      .handle("reset", () =>
        Effect.gen(function*() {
          // the parked steps as the emptying finds them go on after it: each finds its entity
          // gone at its next step, and ends (a step parking meanwhile waits for the emptying's
          // locks, then finds its entity gone and parks nothing: ParkedSteps.park)
          // executions recorded and not yet written go before the emptying, not after it
          yield* usage.flush
          let advanced: ReadonlyArray<string> = []
          const emptied = yield* sql.withTransaction(Effect.gen(function*() {
            const tables = yield* dataTables
            yield* lockTables(sql, tables)
            advanced = yield* parked.tokens
            let deleted_rows = 0
            for (const table of tables) {
              const [row] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql(table)}`
              deleted_rows += Number(row?.n ?? 0)
              yield* sql`DELETE FROM ${sql(table)}`
            }
            return new ResetResult({ tables: tables.length, deleted_rows })
          })).pipe(Effect.retry({ times: 3, while: isDeadlock }), Effect.orDie)
          yield* lifecycles.advance(advanced).pipe(
            Effect.catchAllDefect((defect) => Effect.logWarning("the steps parked before the reset were not advanced", defect))
          )
          // the key the server is configured with (PLATFORM_API_KEY) works on, as after a first start
          if (Option.isSome(yield* Effect.orDie(BootstrapKey))) yield* Effect.orDie(bootstrap)
          yield* Effect.logInfo(`control plane: reset, ${emptied.deleted_rows} rows of ${emptied.tables} tables deleted`)
          return emptied
        }))
      .handle("getEngineHealth", () =>
        Effect.gen(function*() {
          const status = yield* lifecycles.status
          const counts = yield* Effect.provideService(engineCounts, SqlClient.SqlClient, sql)
          return new EngineHealth({ status, ...counts, parked: yield* parked.count })
        }))
  })).pipe(Layer.provide([ParkedSteps.Default, ModelUsageRepo.Default]))
