/**
 * The whole server in-process, as `TestServerLive`, but over a SQLite file (`sqlite:<path>`): what
 * the concurrency and durability-setting tests need (an in-memory database has no WAL and no
 * other connection to be busy with). The file is opened as the `TestEngine` way serves: by the
 * standalone server's opener (lean), or by the plain client an embedding application has (builder).
 */
import { Effect, Layer } from "effect"
import { Accounts } from "../../src/auth/Accounts.js"
import { databaseLayer } from "../../src/database.js"
import { serverDatabaseLayer } from "../../src/fast/database.js"
import { Ids } from "../../src/platform/Ids.js"
import { TestEngine, TestHttpLive } from "../../src/testing.js"

export const fileServer = (databaseUrl: string) =>
  TestHttpLive.pipe(
    Layer.provideMerge(Accounts.Default),
    Layer.provideMerge(Ids.Live),
    Layer.provideMerge(Layer.unwrapEffect(Effect.map(TestEngine, (engine) =>
      engine === "builder" ? databaseLayer(databaseUrl) : serverDatabaseLayer(databaseUrl))))
  )
