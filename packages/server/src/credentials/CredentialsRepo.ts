import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Conflict, Credential } from "@platform-kit/schema"
import { Effect, Option, Schema } from "effect"
import { uniqueRefusedAs } from "../sql/errors.js"
import { makeDocuments } from "../sql/documents.js"
import { lockRow } from "../sql/rowLock.js"
import { containsPattern, likeEscape } from "../sql/like.js"

/** A credential as stored: the wire resource plus the account that owns it. */
export const StoredCredential = Schema.Struct({ ...Credential.fields, account_id: Schema.String })
export type StoredCredential = typeof StoredCredential.Type

const columns = (credential: StoredCredential) => ({
  id: credential.id,
  account_id: credential.account_id,
  created_at: credential.created_at,
  updated_at: credential.updated_at,
  name: credential.name,
  name_lower: credential.name.toLowerCase(),
  type: credential.type
})

/** A credential's name already in its account: 409. */
const nameTakenAs = (name: string) =>
  uniqueRefusedAs(
    { sqliteColumn: "credentials.name", postgresIndex: "credentials_account_name" },
    () => new Conflict({ detail: `A credential named ${name} already exists` })
  )

export class CredentialsRepo extends Effect.Service<CredentialsRepo>()("@platform-kit/server/CredentialsRepo", {
  effect: Effect.gen(function*() {
    const documents = yield* makeDocuments({
      table: "credentials",
      label: "Credential",
      schema: StoredCredential,
      columns
    })
    const sql = yield* SqlClient.SqlClient
    const { record } = documents
    const decode = Schema.decodeUnknownSync(Schema.parseJson(StoredCredential))

    /** Stores `credential` with its sealed secret; 409 when its name is taken (a race included). */
    const insert = (credential: StoredCredential, secretSealed: string): Effect.Effect<StoredCredential, Conflict> =>
      sql`INSERT INTO credentials ${
        sql.insert({ ...record(credential), secret_sealed: secretSealed })
      }`.pipe(
        Effect.as(credential),
        nameTakenAs(credential.name)
      )

    /** Rewrites `credential` (and its secret when given); 409 when the new name is taken. */
    const update = (
      credential: StoredCredential,
      secretSealed: string | undefined
    ): Effect.Effect<StoredCredential, Conflict> => {
      const { id, ...rest } = record(credential)
      const values = { ...rest, ...(secretSealed !== undefined ? { secret_sealed: secretSealed } : {}) }
      return sql`UPDATE credentials SET ${sql.update(values)} WHERE id = ${id}`.pipe(
        Effect.as(credential),
        nameTakenAs(credential.name)
      )
    }

    /** The row lock of credential `id` for the rest of the transaction (`lockRow`): call before the read. */
    const lock = (id: string, accountIds: ReadonlyArray<string>) => lockRow(sql, "credentials", id, accountIds)

    /** Deletes the row, secret included. */
    const remove = (id: string): Effect.Effect<void> => Effect.orDie(sql`DELETE FROM credentials WHERE id = ${id}`)

    /**
     * The credentials named exactly `name` in `accountIds`: none, one, or (names are unique per
     * account) two when several accounts have it — enough for the caller to see it is ambiguous.
     */
    const findByName = (
      name: string,
      accountIds: ReadonlyArray<string>
    ): Effect.Effect<ReadonlyArray<StoredCredential>> =>
      accountIds.length === 0
        ? Effect.succeed([])
        : sql<{ doc: string }>`SELECT doc FROM credentials WHERE name = ${name} AND ${
          sql.in("account_id", accountIds)
        } ORDER BY created_at, id LIMIT 2`.pipe(
          Effect.map((rows) => rows.map((row) => decode(row.doc))),
          Effect.orDie
        )

    /** The sealed secret of credential `id`. */
    const sealedSecret = (id: string): Effect.Effect<Option.Option<string>> =>
      sql<{ secret_sealed: string }>`SELECT secret_sealed FROM credentials WHERE id = ${id}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.secret_sealed)),
        Effect.orDie
      )

    /** The list filters: case-insensitive `name` substring, exact `type`. */
    const filters = (query: { readonly name?: string | undefined; readonly type?: string | undefined }) => {
      const where: Array<Statement.Fragment> = []
      if (query.name !== undefined && query.name !== "") {
        where.push(sql`name_lower LIKE ${containsPattern(query.name.toLowerCase())} ${sql.literal(likeEscape)}`)
      }
      if (query.type !== undefined) where.push(sql`type = ${query.type}`)
      return where
    }

    return { ...documents, insert, update, lock, remove, findByName, sealedSecret, filters } as const
  })
}) {}
