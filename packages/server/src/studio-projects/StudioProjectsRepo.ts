import { SqlClient } from "@effect/sql"
import { StudioProject } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { makeDocuments } from "../sql/documents.js"

/**
 * Studio projects: `doc` holds the project as answered; the Studio API key, sealed by `SecretBox`
 * for the project's id, has a column of its own (`studio_api_key_sealed`), never in `doc`.
 */
export class StudioProjectsRepo extends Effect.Service<StudioProjectsRepo>()("@platform-kit/server/StudioProjectsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "studio_projects",
      label: "Studio project",
      schema: StudioProject,
      columns: (project) => ({ id: project.id, account_id: project.account_id, created_at: project.created_at })
    })
    const sql = yield* SqlClient.SqlClient

    /** Stores `project` with its sealed key. */
    const insert = (project: StudioProject, keySealed: string): Effect.Effect<StudioProject> =>
      sql`INSERT INTO studio_projects ${sql.insert({ ...documents.record(project), studio_api_key_sealed: keySealed })}`.pipe(
        Effect.as(project),
        Effect.orDie
      )

    /** Rewrites `project` (and its sealed key when given). */
    const update = (project: StudioProject, keySealed: string | undefined): Effect.Effect<StudioProject> => {
      const { id, ...rest } = documents.record(project)
      const values = { ...rest, ...(keySealed !== undefined ? { studio_api_key_sealed: keySealed } : {}) }
      return sql`UPDATE studio_projects SET ${sql.update(values)} WHERE id = ${id}`.pipe(Effect.as(project), Effect.orDie)
    }

    /** The sealed Studio API key of project `id` (open it with `SecretBox.decrypt(sealed, id)`). */
    const sealedKey = (id: string): Effect.Effect<Option.Option<string>> =>
      sql<{ studio_api_key_sealed: string }>`SELECT studio_api_key_sealed FROM studio_projects WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.studio_api_key_sealed)),
        Effect.orDie
      )

    return { ...documents, insert, update, sealedKey } as const
  })
}) {}
