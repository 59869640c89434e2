/**
 * Every migration, in order. The server runs them on start; tests run them on each in-memory
 * database. Add a family's tables as a new entry; never edit one that has shipped.
 */
import { Migrator } from "@effect/sql"
import auth from "../auth/migration.js"
import modelGroups from "../model-groups/migration.js"

export const migrations = Migrator.fromRecord({
  "0001_auth": auth,
  "0002_model_groups": modelGroups
})
