import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { CredentialSecret, cursorOf, NotFound } from "@platform-kit/schema"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../auth/access.js"
import { freshIdentity, nowIso } from "../platform/Ids.js"
import { CredentialsRepo, type StoredCredential } from "./CredentialsRepo.js"
import { SecretBox } from "./SecretBox.js"

const encodeSecret = Schema.encodeSync(CredentialSecret)

export const CredentialsLive = HttpApiBuilder.group(PlatformApi, "credentials", (handlers) =>
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

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
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
          return yield* repo.insert(credential, yield* box.encrypt(Redacted.value(payload.secret), id))
        }))
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
          repo.cursorPage({ accountIds, ...cursorOf(urlParams), where: repo.filters(urlParams) })))
      .handle("getByName", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const accounts = yield* accountsForRead(urlParams.account_id)
          const found = yield* repo.findByName(path.credential_name, accounts)
          return yield* Option.match(found, {
            onNone: () => Effect.fail(new NotFound({ detail: `Credential named ${path.credential_name} not found` })),
            onSome: Effect.succeed
          })
        }))
      .handle("get", ({ path }) => owned(path.credential_id))
      .handle("update", ({ path, payload }) =>
        repo.sql.withTransaction(Effect.gen(function*() {
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
          const sealed = payload.secret === undefined
            ? undefined
            : yield* box.encrypt(Redacted.value(payload.secret), current.id)
          return yield* repo.update(next, sealed)
        })).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("delete", ({ path }) =>
        repo.sql.withTransaction(
          Effect.gen(function*() {
            const current = yield* ownedLocked(path.credential_id)
            yield* repo.remove(current.id)
            return current
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die)))
      .handle("secret", ({ path }) =>
        Effect.gen(function*() {
          const credential = yield* owned(path.credential_id)
          const sealed = yield* repo.sealedSecret(credential.id)
          if (Option.isNone(sealed)) {
            return yield* Effect.fail(new NotFound({ detail: `Credential ${credential.id} not found` }))
          }
          const body = encodeSecret(new CredentialSecret({ secret: Redacted.make(yield* box.decrypt(sealed.value, credential.id)) }))
          // the one answer that carries a secret: no cache keeps it
          return HttpServerResponse.unsafeJson(body, { headers: { "cache-control": "no-store" } })
        }))
  })
).pipe(Layer.provide(CredentialsRepo.Default), Layer.provide(SecretBox.Live))
