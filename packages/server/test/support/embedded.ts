/**
 * The kit embedded in a program, as a test uses it: the API answered in-process
 * (`InProcessHttpClient`) on in-memory SQLite, with `Accounts` to provision callers.
 */
import { Layer } from "effect"
import { Accounts } from "../../src/auth/Accounts.js"
import { DatabaseMemory } from "../../src/database.js"
import { InProcessHttpClient } from "../../src/embedded.js"
import { Ids } from "../../src/platform/Ids.js"

export const EmbeddedLive = Layer.mergeAll(InProcessHttpClient, Accounts.Default).pipe(
  Layer.provideMerge(Ids.Live),
  Layer.provideMerge(DatabaseMemory)
)
