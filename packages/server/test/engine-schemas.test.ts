/**
 * Two applications on one database server, each on a schema of its own (docs/postgresql.md,
 * "Schemas"): each one's workflow engine runs its own lifecycles while the other runs. On
 * PostgreSQL (`npm run test:pg`) the two are two schemas of one database, where the engines' shard
 * locks must not be the database's (session advisory locks are database-wide: the second engine
 * would find every shard taken by the first, and its lifecycles would wait for the first to close);
 * on SQLite they are two files.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Context, Effect, Layer, Option } from "effect"
import { eventually, provision, TestServerLive } from "../src/testing.js"
import { storedVariant } from "./support/applications.js"

/** A deployment created in the application of `context`, and the status it has settled in. */
const deploymentSettles = (context: Context.Context<Layer.Layer.Success<typeof TestServerLive>>) =>
  Effect.gen(function*() {
    const { accountId, client } = yield* provision()
    const { variant } = yield* storedVariant(client, accountId)
    const deployment = yield* client.applications.createDeployment({
      payload: { name: "app", endpoint: "https://example.org", application_variant_id: variant, is_active: true, account_id: accountId }
    })
    return yield* eventually(
      Effect.map(
        client.applications.getDeployment({ path: { application_deployment_id: deployment.id } }),
        (read) => (read.status === "PENDING" ? Option.none() : Option.some(read.status))
      ),
      10_000
    )
  }).pipe(Effect.provide(context))

describe("applications on schemas of their own, at once", () => {
  it.live("each one's engine runs its lifecycles while the other's runs", () =>
    Effect.gen(function*() {
      const first = yield* Layer.build(TestServerLive)
      const second = yield* Layer.build(TestServerLive)
      // the first engine is running (its lifecycle done) before the second is asked for one
      assert.deepStrictEqual(yield* deploymentSettles(first), Option.some("READY"))
      assert.deepStrictEqual(yield* deploymentSettles(second), Option.some("READY"))
      assert.deepStrictEqual(yield* deploymentSettles(first), Option.some("READY"))
    }).pipe(Effect.scoped), 60_000)
})
