/** Databases as an earlier release left them, for the tests of a migration on an upgraded file. */
import { Migrator } from "@effect/sql"
import { Effect } from "effect"
import { migrations } from "../../src/migrations.js"

/** Runs the migrations up to and including `last` (a database written by the release that ended there). */
export const migrateUpTo = (last: number) =>
  Migrator.make({})({ loader: Effect.map(migrations, (loaded) => loaded.filter(([id]) => id <= last)) })

/** Runs every migration not run yet (the upgrade). */
export const migrateAll = Migrator.make({})({ loader: migrations })
