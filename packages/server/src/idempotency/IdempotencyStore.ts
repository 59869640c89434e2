/**
 * Where `Idempotency-Key`s live (docs/idempotency.md): claims, recorded responses, expiry.
 *
 * A key is scoped by the caller's identity. Claiming is one portable `INSERT … ON CONFLICT DO
 * NOTHING` followed by a read of the row: the request whose `claim_id` is in the row performs, any
 * other one sees the row (in progress, done, or made for another request). Rows older than
 * `IdempotencyTtl` are ignored and deleted; a `pending` row older than `IdempotencyLease` was left
 * by a process that died mid-request and may be claimed again. Time comes from Effect's `Clock`.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Data, Duration, Effect, Option } from "effect"
import { Ids } from "../platform/Ids.js"

/** How long a key is remembered, from its first request. */
export const IdempotencyTtl = Duration.hours(24)

/** How long a `pending` claim holds before it counts as abandoned (its process died). */
export const IdempotencyLease = Duration.minutes(1)

/** How often, at most, expired rows are deleted (lazily, by a request that carries a key). */
const purgeEvery = Duration.minutes(1)

/** What a retry must repeat for the key to replay: method, path (with query) and a request hash. */
export interface IdempotentRequest {
  readonly method: string
  readonly path: string
  readonly requestHash: string
}

/** A recorded response: status, the headers to replay, and the body as text. */
export interface StoredResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export type Claim = Data.TaggedEnum<{
  /** This request holds the key: perform it, then `complete` or `release`. */
  Claimed: { readonly claimId: string }
  /** The key's first request finished: answer its response again. */
  Replay: { readonly response: StoredResponse }
  /** The key's first request is still running. */
  InProgress: {}
  /** The key was used for another method, path, body or selected account. */
  Mismatch: {}
}>
export const Claim = Data.taggedEnum<Claim>()

interface Row {
  readonly claim_id: string
  readonly state: "pending" | "done"
  readonly method: string
  readonly path: string
  readonly request_hash: string
  readonly status: number | null
  readonly headers: string | null
  readonly body: string | null
  readonly created_at: string
}

const iso = (ms: number) => new Date(ms).toISOString()

export class IdempotencyStore extends Effect.Service<IdempotencyStore>()("@platform-kit/server/IdempotencyStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ids = yield* Ids
    const ttl = Duration.toMillis(IdempotencyTtl)
    const lease = Duration.toMillis(IdempotencyLease)
    let lastPurge = Number.NEGATIVE_INFINITY

    /** Deletes every expired row, at most once per `purgeEvery`. */
    const purgeIfDue = (now: number) =>
      Effect.suspend(() => {
        if (now - lastPurge < Duration.toMillis(purgeEvery)) return Effect.void
        lastPurge = now
        return sql`DELETE FROM idempotency_keys WHERE created_at <= ${iso(now - ttl)}`.pipe(Effect.asVoid)
      })

    const read = (identityId: string, key: string) =>
      sql<Row>`
        SELECT claim_id, state, method, path, request_hash, status, headers, body, created_at
        FROM idempotency_keys WHERE identity_id = ${identityId} AND idempotency_key = ${key}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const remove = (identityId: string, key: string, claimId: string) =>
      sql`DELETE FROM idempotency_keys
        WHERE identity_id = ${identityId} AND idempotency_key = ${key} AND claim_id = ${claimId}`.pipe(Effect.asVoid)

    /**
     * Claims `key` for `request`, or says why not. A row that expired, or a claim whose lease ran
     * out, is deleted and the claim tried again (a few times: other requests may race for it).
     */
    const claim = (identityId: string, key: string, request: IdempotentRequest): Effect.Effect<Claim> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        yield* purgeIfDue(now)
        const claimId = yield* ids.make
        for (let attempt = 0; attempt < 3; attempt++) {
          yield* sql`INSERT INTO idempotency_keys ${
            sql.insert({
              identity_id: identityId,
              idempotency_key: key,
              claim_id: claimId,
              state: "pending",
              method: request.method,
              path: request.path,
              request_hash: request.requestHash,
              status: null,
              headers: null,
              body: null,
              created_at: iso(now)
            })
          } ON CONFLICT (identity_id, idempotency_key) DO NOTHING`
          const found = yield* read(identityId, key)
          if (Option.isNone(found)) continue // released between the two statements: try again
          const row = found.value
          if (row.claim_id === claimId) return Claim.Claimed({ claimId })
          const createdAt = Date.parse(row.created_at)
          if (createdAt <= now - ttl || (row.state === "pending" && createdAt <= now - lease)) {
            yield* remove(identityId, key, row.claim_id)
            continue
          }
          if (row.method !== request.method || row.path !== request.path || row.request_hash !== request.requestHash) {
            return Claim.Mismatch()
          }
          if (row.state === "pending") return Claim.InProgress()
          return Claim.Replay({
            response: {
              status: Number(row.status),
              headers: row.headers === null ? {} : JSON.parse(row.headers),
              body: row.body ?? ""
            }
          })
        }
        return Claim.InProgress()
      }).pipe(Effect.orDie)

    /** Records the response of a claimed key, to be replayed until the key expires. */
    const complete = (identityId: string, key: string, claimId: string, response: StoredResponse) =>
      sql`UPDATE idempotency_keys SET ${
        sql.update({
          state: "done",
          status: response.status,
          headers: JSON.stringify(response.headers),
          body: response.body
        })
      } WHERE identity_id = ${identityId} AND idempotency_key = ${key} AND claim_id = ${claimId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Gives a claimed key up without a response: the next request with it performs again. */
    const release = (identityId: string, key: string, claimId: string) =>
      remove(identityId, key, claimId).pipe(Effect.orDie)

    return { claim, complete, release } as const
  })
}) {}
