import { HttpServerResponse } from "@effect/platform"
import { CredentialSecret, cursorOf, NotFound, ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { CredentialsRepo, type StoredCredential } from "./CredentialsRepo.js"
import { SecretBox } from "./SecretBox.js"
import type { ImplementGroup } from "../http/groups.js"

const encodeSecret = Schema.encodeSync(CredentialSecret)

/** A create without `payload` (nor its older name `secret`): 422 `missing` at `["body","payload"]`. */
const payloadMissing = new ValidationError({
  detail: [new ValidationIssue({ loc: ["body", "payload"], msg: "Field required", type: "missing", input: null })]
})

/** A name found in several of the caller's accounts, none selected: 422 on the header. */
const nameAmbiguous = (name: string) =>
  new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["header", "x-selected-account-id"],
        msg: `Several of the caller's accounts have a credential named '${name}': select one with x-selected-account-id`,
        type: "missing",
        input: null
      })
    ]
  })

export const CredentialsHttp = (group: ImplementGroup) =>
  group("credentials", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* CredentialsRepo
    const box = yield* SecretBox

    /** The credential `id` in one of the caller's accounts, else 404. */
    const owned = (id: string) => Effect.flatMap(callerAccounts, (accounts) => repo.get(id, accounts))

    /**
     * `owned`, with the row locked for the rest of the transaction first (call inside one), so
     * concurrent changes of one credential apply one after the other and none is lost.
     */
    const ownedLocked = (id: string) =>
      Effect.flatMap(callerAccounts, (accounts) => Effect.zipRight(repo.lock(id, accounts), repo.get(id, accounts)))

    /**
     * The credential named exactly `name`: in the `account_id` query's account, else the selected
     * account, else every account of the caller — where a name several of them have is a 422 on
     * `x-selected-account-id` (the answer never depends on which was created first).
     */
    const byName = (name: string, accountId: string | undefined) =>
      Effect.gen(function*() {
        const accounts = yield* accountsForRead(accountId)
        const found = yield* repo.findByName(name, accounts)
        if (found.length > 1) return yield* Effect.fail(nameAmbiguous(name))
        const credential = found[0]
        if (credential === undefined) return yield* Effect.fail(new NotFound({ detail: `Credential named ${name} not found` }))
        return credential
      })

    /** The decrypted payload of `credential`, answered with `Cache-Control: no-store`. */
    const reveal = (credential: StoredCredential) =>
      Effect.gen(function*() {
        const sealed = yield* repo.sealedSecret(credential.id)
        if (Option.isNone(sealed)) {
          return yield* Effect.fail(new NotFound({ detail: `Credential ${credential.id} not found` }))
        }
        const body = encodeSecret(
          new CredentialSecret({
            result: Redacted.make(yield* box.decrypt(sealed.value, credential.id)),
            object: "credential_secret"
          }, true)
        )
        // the one answer that carries a secret: no cache keeps it
        return HttpServerResponse.unsafeJson(body, { headers: { "cache-control": "no-store" } })
      })

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const secret = payload.payload ?? payload.secret
          if (secret === undefined) return yield* Effect.fail(payloadMissing)
          const account_id = yield* accountForWrite(payload.account_id)
          const [id, now] = yield* freshIdentity
          const credential: StoredCredential = {
            id,
            account_id,
            ...(yield* createdBy),
            type: payload.type,
            name: payload.name,
            description: payload.description ?? null,
            credential_metadata: payload.credential_metadata ?? null,
            created_at: now,
            updated_at: now,
            object: "credential"
          }
          return yield* repo.insert(credential, yield* box.encrypt(Redacted.value(secret), id))
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          repo.cursorPage({ accountIds, ...cursorOf(urlParams), where: repo.filters(urlParams) })))
      .handle("getByName", ({ path, urlParams }) => byName(path.credential_name, urlParams.account_id))
      .handle("secretByName", ({ path, urlParams }) =>
        Effect.flatMap(byName(path.credential_name, urlParams.account_id), reveal))
      .handle("get", ({ path }) => owned(path.credential_id))
      .handle("update", ({ path, payload }) =>
        repo.transaction(Effect.gen(function*() {
          const current = yield* ownedLocked(path.credential_id)
          const next: StoredCredential = {
            ...current,
            name: payload.name ?? current.name,
            type: payload.type ?? current.type,
            description: payload.description !== undefined ? payload.description : current.description,
            credential_metadata: payload.credential_metadata !== undefined
              ? payload.credential_metadata
              : current.credential_metadata,
            updated_at: yield* nowIso
          }
          const secret = payload.payload ?? payload.secret
          const sealed = secret === undefined ? undefined : yield* box.encrypt(Redacted.value(secret), current.id)
          return yield* repo.update(next, sealed)
        })))
      .handle("delete", ({ path }) =>
        repo.transaction(
          Effect.gen(function*() {
            const current = yield* ownedLocked(path.credential_id)
            yield* repo.remove(current.id)
            return current
          })
        ))
      .handle("secret", ({ path }) => Effect.flatMap(owned(path.credential_id), reveal))
  })
).pipe(Layer.provide(CredentialsRepo.Default), Layer.provide(SecretBox.Live))
