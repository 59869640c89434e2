/**
 * The control plane (docs/control-plane.md): `x-admin-key` must be `PLATFORM_ADMIN_KEY`, compared
 * in constant time; no account key opens it, and without `PLATFORM_ADMIN_KEY` every endpoint is
 * a 404, as if the routes did not exist.
 */
import { SqlClient } from "@effect/sql"
import { AdminAuthentication, PlatformApi } from "@platform-kit/api"
import { AdvancedSteps, EngineHealth, NotFound, Unauthorized } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { AdminKey } from "../config.js"
import { Lifecycles } from "../engine/Lifecycles.js"
import { ParkedSteps } from "../engine/ParkedSteps.js"
import { Simulation } from "../engine/Simulation.js"
import { group } from "../fast/implementations.js"

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
}).pipe(Effect.orElseSucceed(() => ({ running: 0, failed: 0 })))

export const AdminLive = group(PlatformApi, "admin", (handlers) =>
  Effect.gen(function*() {
    const simulation = yield* Simulation
    const parked = yield* ParkedSteps
    const lifecycles = yield* Lifecycles
    const sql = yield* SqlClient.SqlClient
    /** Completes the parked steps `filter` names (all when it names none). */
    const advance = (filter: { readonly lifecycle?: string | undefined; readonly id?: string | undefined }) =>
      Effect.flatMap(parked.take(filter), (taken) =>
        Effect.as(lifecycles.advance(taken.map((step) => step.token)), new AdvancedSteps({ advanced: taken.map((step) => step.step) })))
    return handlers
      .handle("getControls", () => simulation.controls)
      .handle("updateControls", ({ payload }) =>
        Effect.gen(function*() {
          const controls = yield* simulation.update(payload)
          // leaving `manual`: the steps parked meanwhile go on, as the new progression would run them
          if (controls.progression !== "manual") yield* advance({})
          return controls
        }))
      .handle("listParkedSteps", () => parked.list)
      .handle("advanceParkedSteps", ({ payload }) => advance(payload))
      .handle("getEngineHealth", () =>
        Effect.gen(function*() {
          const status = yield* lifecycles.status
          const counts = yield* Effect.provideService(engineCounts, SqlClient.SqlClient, sql)
          return new EngineHealth({ status, ...counts, parked: yield* parked.count })
        }))
  })).pipe(Layer.provide(ParkedSteps.Default))
