/**
 * The whole server in-process, as `TestServerLive`, but over a SQLite file (`sqlite:<path>`): what
 * the concurrency and durability-setting tests need (an in-memory database has no WAL and no
 * other connection to be busy with).
 */
import { Layer } from "effect"
import { Accounts } from "../../src/auth/Accounts.js"
import { Ids } from "../../src/platform/Ids.js"
import { databaseLayer } from "../../src/database.js"
import { TestHttpLive } from "../../src/testing.js"

export const fileServer = (databaseUrl: string) =>
  TestHttpLive.pipe(
    Layer.provideMerge(Accounts.Default),
    Layer.provideMerge(Ids.Live),
    Layer.provideMerge(databaseLayer(databaseUrl))
  )
