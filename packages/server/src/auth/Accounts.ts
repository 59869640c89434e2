/**
 * Accounts, identities, memberships and API keys. Keys are random, shown once, and stored as a
 * SHA-256 hash; a lookup is one indexed query.
 */
import { SqlClient } from "@effect/sql"
import type { AccountRole, IdentityType } from "@platform-kit/schema"
import { Effect, Option, Redacted } from "effect"
import * as Crypto from "node:crypto"
import { Ids, nowIso } from "../platform/Ids.js"
import { makeCommittedMemo, makeRead } from "../sql/reads.js"

/** SHA-256 of a key, hex; one call per authenticated request (Node's one-shot `hash` where it exists: ≥ 20.12). */
export const hashKey: (key: string) => string = typeof Crypto.hash === "function"
  ? (key) => Crypto.hash("sha256", key, "hex")
  : (key) => Crypto.createHash("sha256").update(key).digest("hex")

export const generateKey = () => `pk_${Crypto.randomBytes(24).toString("base64url")}`

/** The first characters of `key` kept in clear: 7 (`pk_` and 4), and never more than a quarter of it. */
export const keyPrefix = (key: string) => key.slice(0, Math.min(7, Math.floor(key.length / 4)))

/** An account as the admin CLI lists it. */
export interface AccountRow {
  readonly id: string
  readonly name: string
  readonly created_at: string
}

/** A membership as `GET /user-info` reports it. */
export interface MembershipRow {
  readonly account_id: string
  readonly account_name: string
  readonly role: AccountRole
}

/** A key as the admin CLI lists it: never the key, only the first characters kept of it. */
export interface KeyRow {
  readonly id: string
  readonly key_prefix: string | null
  readonly identity_id: string
  readonly identity_type: IdentityType
  readonly account_ids: ReadonlyArray<string>
  readonly created_at: string
  readonly revoked_at: string | null
}

export interface Caller {
  readonly identityId: string
  readonly identityType: IdentityType
  readonly accountIds: ReadonlyArray<string>
}

export class Accounts extends Effect.Service<Accounts>()("@platform-kit/server/Accounts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = yield* makeRead
    // a caller, kept until the next commit (a revocation, a membership, by this process or another)
    const callers = yield* makeCommittedMemo<Option.Option<Caller>>(10_000)
    const ids = yield* Ids

    const createAccount = (options: { readonly id?: string; readonly name?: string } = {}) =>
      Effect.gen(function*() {
        const id = options.id ?? (yield* ids.make)
        const now = yield* nowIso
        yield* sql`INSERT INTO accounts ${sql.insert({ id, name: options.name ?? id, created_at: now })}`
        return id
      }).pipe(Effect.orDie)

    const createIdentity = (type: IdentityType, email?: string) =>
      Effect.gen(function*() {
        const id = yield* ids.make
        yield* sql`INSERT INTO identities ${sql.insert({ id, type, email: email ?? null, created_at: yield* nowIso })}`
        return id
      }).pipe(Effect.orDie)

    const addMember = (identityId: string, accountId: string, role: AccountRole = "admin") =>
      Effect.gen(function*() {
        const now = yield* nowIso
        yield* sql`INSERT INTO memberships ${
          sql.insert({ identity_id: identityId, account_id: accountId, role, created_at: now })
        } ON CONFLICT DO NOTHING`
      }).pipe(Effect.orDie)

    /** Stores `key` (or a new one) for the identity; answers the plain key, which is not kept. */
    const createKey = (identityId: string, key: string = generateKey()) =>
      Effect.gen(function*() {
        yield* sql`INSERT INTO api_keys ${
          sql.insert({
            id: yield* ids.make,
            key_hash: hashKey(key),
            key_prefix: keyPrefix(key),
            identity_id: identityId,
            created_at: yield* nowIso,
            revoked_at: null
          })
        }`
        return Redacted.make(key)
      }).pipe(Effect.orDie)

    /** Revokes the key; from the next request on it is a 401. Revoking again keeps the first time. */
    const revokeKey = (key: string) =>
      Effect.gen(function*() {
        yield* sql`UPDATE api_keys SET revoked_at = ${yield* nowIso} WHERE key_hash = ${hashKey(key)} AND revoked_at IS NULL`
      }).pipe(Effect.orDie)

    /** Whether `key` is a key of this database, and whether it still opens the API. */
    const keyState = (key: string): Effect.Effect<"active" | "revoked" | "unknown"> =>
      sql<{ revoked_at: string | null }>`SELECT revoked_at FROM api_keys WHERE key_hash = ${hashKey(key)}`.pipe(
        Effect.map((rows) => rows.length === 0 ? "unknown" : rows[0]!.revoked_at === null ? "active" : "revoked"),
        Effect.orDie
      )

    /** The caller a key belongs to, with its accounts; none for an unknown or revoked key. */
    const findCaller = (key: string): Effect.Effect<Option.Option<Caller>> => {
      const keyHash = hashKey(key)
      return callers(keyHash, () => callerOf(keyHash))
    }

    const callerOf = (keyHash: string): Effect.Effect<Option.Option<Caller>> =>
      read(sql<{ identity_id: string; type: IdentityType; account_id: string | null }>`
        SELECT k.identity_id, i.type, m.account_id
        FROM api_keys k
        JOIN identities i ON i.id = k.identity_id
        LEFT JOIN memberships m ON m.identity_id = k.identity_id
        WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL
        ORDER BY m.created_at, m.account_id`).pipe(
        Effect.map((rows) =>
          rows.length === 0 ? Option.none() : Option.some({
            identityId: rows[0]!.identity_id,
            identityType: rows[0]!.type,
            accountIds: rows.flatMap((row) => (row.account_id === null ? [] : [row.account_id]))
          })
        ),
        Effect.orDie
      )

    const keyExists = (key: string) =>
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM api_keys WHERE key_hash = ${hashKey(key)}`.pipe(
        Effect.map((rows) => Number(rows[0]!.n) > 0),
        Effect.orDie
      )

    const identityExists = (id: string) =>
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM identities WHERE id = ${id}`.pipe(
        Effect.map((rows) => Number(rows[0]!.n) > 0),
        Effect.orDie
      )

    const accountExists = (id: string) =>
      sql<{ n: number }>`SELECT COUNT(*) AS n FROM accounts WHERE id = ${id}`.pipe(
        Effect.map((rows) => Number(rows[0]!.n) > 0),
        Effect.orDie
      )

    const isEmpty = sql<{ n: number }>`SELECT COUNT(*) AS n FROM api_keys`.pipe(
      Effect.map((rows) => Number(rows[0]!.n) === 0),
      Effect.orDie
    )

    /**
     * A `user` identity that is a member of a (new or given) account, with a key: what the
     * bootstrap and the tests need.
     */
    const provisionUser = (
      options: { readonly accountId?: string; readonly key?: string; readonly type?: IdentityType; readonly email?: string } = {}
    ) =>
      sql.withTransaction(Effect.gen(function*() {
        const accountId = options.accountId !== undefined && (yield* accountExists(options.accountId))
          ? options.accountId
          : yield* createAccount(options.accountId !== undefined ? { id: options.accountId } : {})
        const identityId = yield* createIdentity(options.type ?? "user", options.email)
        yield* addMember(identityId, accountId)
        const key = yield* createKey(identityId, options.key)
        return { accountId, identityId, key }
      })).pipe(Effect.orDie)

    /** An identity: its type and e-mail address (`null`: none given). */
    const findIdentity = (id: string) =>
      read(sql<{ id: string; type: IdentityType; email: string | null }>`SELECT id, type, email FROM identities WHERE id = ${id}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** The memberships of an identity (in `accountIds` when given), oldest first, with their accounts' names. */
    const membershipsOf = (identityId: string, accountIds?: ReadonlyArray<string>) =>
      read(sql<MembershipRow>`
        SELECT m.account_id, a.name AS account_name, m.role
        FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.identity_id = ${identityId}${
        accountIds === undefined ? sql.literal("") : sql` AND ${accountIds.length === 0 ? sql.literal("1 = 0") : sql.in("account_id", accountIds)}`
      }
        ORDER BY m.created_at, m.account_id`).pipe(Effect.orDie)

    /** A new account named `name` whose admin is `identityId`, in one transaction; answers its id. */
    const createAccountFor = (identityId: string, name: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const id = yield* createAccount({ name })
        yield* addMember(identityId, id, "admin")
        return id
      })).pipe(Effect.orDie)

    /** Every account, oldest first. */
    const listAccounts = sql<AccountRow>`SELECT id, name, created_at FROM accounts ORDER BY created_at, id`.pipe(Effect.orDie)

    /**
     * Every key (of the members of `accountId` when given), oldest first: its id, its prefix (the
     * key itself is not kept), its identity and the accounts that identity is a member of.
     */
    const listKeys = (accountId?: string) =>
      Effect.map(
        sql<Omit<KeyRow, "account_ids"> & { readonly account_id: string | null }>`
          SELECT k.id, k.key_prefix, k.identity_id, i.type AS identity_type, k.created_at, k.revoked_at, m.account_id
          FROM api_keys k
          JOIN identities i ON i.id = k.identity_id
          LEFT JOIN memberships m ON m.identity_id = k.identity_id
          WHERE ${accountId === undefined ? sql`1 = 1` : sql`k.identity_id IN (SELECT identity_id FROM memberships WHERE account_id = ${accountId})`}
          ORDER BY k.created_at, k.id, m.created_at, m.account_id`,
        // a row per key and membership, a key's rows one after another: one key each, its accounts gathered
        (rows) =>
          rows.reduce<Array<KeyRow>>((keys, { account_id, ...key }) => {
            const last = keys.at(-1)
            if (last?.id === key.id) (last.account_ids as Array<string>).push(...(account_id === null ? [] : [account_id]))
            else keys.push({ ...key, account_ids: account_id === null ? [] : [account_id] })
            return keys
          }, [])
      ).pipe(Effect.orDie)

    return {
      createAccount,
      listAccounts,
      listKeys,
      createIdentity,
      addMember,
      createKey,
      revokeKey,
      keyState,
      findCaller,
      keyExists,
      identityExists,
      accountExists,
      isEmpty,
      provisionUser,
      findIdentity,
      membershipsOf,
      createAccountFor
    } as const
  })
}) {}
