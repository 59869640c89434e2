/**
 * Application specs, variants and themes (docs/applications.md "Specs, variants and themes"):
 * stored documents; a spec is archived in place, a variant's V0 graph is validated unless it is a
 * draft.
 */
import { SqlClient } from "@effect/sql"
import {
  AgentsServiceConfiguration,
  ApplicationConfiguration,
  ApplicationGraphError,
  ApplicationGraphInvalid,
  ApplicationSpec,
  ApplicationVariantAgentsService,
  ApplicationVariantOffline,
  ApplicationVariantV0,
  GenericDeleteResponse,
  OfflineConfiguration,
  pageOf,
  Theme,
  ThemeVarsAnswered,
  ValidationError,
  ValidationIssue,
  type ApplicationVariant,
  type CreateApplicationVariant
} from "@platform-kit/schema"
import { Effect, Layer } from "effect"
import { accountForWrite, accountsForRead, callerAccounts, createdBy } from "../../auth/access.js"
import type { ImplementGroup } from "../../http/groups.js"
import { freshIdentity } from "../../platform/Ids.js"
import { ensureReference } from "../../sql/documents.js"
import { validateGraph } from "../graph.js"
import { SpecsRepo, ThemesRepo, VariantsRepo } from "./SpecsRepo.js"

const ensureTheme = (id: string | undefined, accountId: string) =>
  id === undefined ? Effect.void : ensureReference({ table: "application_themes", id, accountIds: [accountId], label: "Theme" })

export const ApplicationSpecsHttp = (group: ImplementGroup) =>
  group("applicationSpecs", (handlers) =>
    Effect.gen(function*() {
      const specs = yield* SpecsRepo
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            yield* ensureTheme(payload.theme_id, account_id)
            const [id, created_at] = yield* freshIdentity
            return yield* specs.insert(
              new ApplicationSpec({
                id,
                account_id,
                name: payload.name,
                description: payload.description,
                run_online_evaluation: payload.run_online_evaluation ?? false,
                theme_id: payload.theme_id ?? null,
                archived_at: null,
                created_at,
                updated_at: created_at,
                created_by_user_id: (yield* createdBy).created_by_user_id
              })
            )
          }))
        .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => specs.get(path.application_spec_id, accounts)))
        .handle("update", ({ path, payload }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            const [, updated_at] = yield* freshIdentity
            return yield* specs.transaction(Effect.gen(function*() {
              const current = yield* specs.get(path.application_spec_id, accounts)
              if (payload.restore === true) return yield* specs.update(new ApplicationSpec({ ...current, archived_at: null, updated_at }))
              const { restore: _, ...fields } = payload
              yield* ensureTheme(fields.theme_id ?? undefined, current.account_id)
              return yield* specs.update(new ApplicationSpec({ ...current, ...fields, updated_at }))
            }))
          }))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            specs.page({ accountIds, ...pageOf(urlParams), where: specs.unlessArchived(urlParams.include_archived) })))
        // archived in place: reads still answer it, lists hide it, `restore` brings it back
        .handle("delete", ({ path }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            const [, now] = yield* freshIdentity
            yield* specs.transaction(Effect.gen(function*() {
              const spec = yield* specs.get(path.application_spec_id, accounts)
              if (spec.archived_at === null) yield* specs.update(new ApplicationSpec({ ...spec, archived_at: now, updated_at: now }))
            }))
            return new GenericDeleteResponse({ count: 1, success: true })
          }))
    })
  ).pipe(Layer.provide(SpecsRepo.Default))

/** The graph problems of a V0 variant that is not a draft, as `/v4/applications/validate` reports them. */
const checkGraph = (payload: CreateApplicationVariant) => {
  if (payload.version !== "V0" || payload.draft === true) return Effect.void
  const problems = validateGraph(payload.configuration.nodes, payload.configuration.edges)
  return problems.length === 0 ? Effect.void : Effect.fail(
    new ApplicationGraphInvalid({
      errors: problems.map((problem) => new ApplicationGraphError(problem)),
      service_error_code: "APPLICATION_BUILDER_VALIDATION_ERROR"
    })
  )
}

/** A variant of the stored one's version, from `fields`. */
const variantOf = (fields: ApplicationVariant): ApplicationVariant => {
  switch (fields.version) {
    case "V0":
      return new ApplicationVariantV0({ ...fields, configuration: new ApplicationConfiguration(fields.configuration, true) }, true)
    case "AGENTS_SERVICE":
      return new ApplicationVariantAgentsService(
        { ...fields, configuration: new AgentsServiceConfiguration(fields.configuration, true) },
        true
      )
    case "OFFLINE":
      return new ApplicationVariantOffline({ ...fields, configuration: new OfflineConfiguration(fields.configuration, true) }, true)
  }
}

const onlyAgentsService = (field: string, version: string) =>
  new ValidationError({
    detail: [
      new ValidationIssue({
        loc: ["body", "configuration", field],
        msg: `Only an AGENTS_SERVICE variant has configuration.${field}; this variant is ${version}`,
        type: "value_error",
        input: null
      })
    ]
  })

export const ApplicationVariantsHttp = (group: ImplementGroup) =>
  group("applicationVariants", (handlers) =>
    Effect.gen(function*() {
      const variants = yield* VariantsRepo
      const sql = yield* SqlClient.SqlClient
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            yield* ensureReference({ table: "application_specs", id: payload.application_spec_id, accountIds: [account_id], label: "Application spec" })
            yield* checkGraph(payload)
            const [id, created_at] = yield* freshIdentity
            const { account_id: _, draft, description, published_at, ...given } = payload
            return yield* variants.insert(variantOf({
              ...given,
              id,
              account_id,
              description: description ?? null,
              published_at: published_at ?? null,
              draft: draft ?? false,
              created_at,
              updated_at: created_at,
              created_by_user_id: (yield* createdBy).created_by_user_id
            } as ApplicationVariant))
          }))
        .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => variants.get(path.application_variant_id, accounts)))
        .handle("patch", ({ path, payload }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            const [, updated_at] = yield* freshIdentity
            return yield* variants.transaction(Effect.gen(function*() {
              const current = yield* variants.get(path.application_variant_id, accounts)
              const { configuration, ...fields } = payload
              if (configuration !== undefined && current.version !== "AGENTS_SERVICE") {
                const agentOnly = (["params", "raw_configuration", "type"] as const).find((field) => configuration[field] !== undefined)
                if (agentOnly !== undefined) return yield* Effect.fail(onlyAgentsService(agentOnly, current.version))
              }
              return yield* variants.update(variantOf({
                ...current,
                ...fields,
                configuration: { ...current.configuration, ...configuration },
                updated_at
              } as ApplicationVariant))
            }))
          }))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            variants.page({
              accountIds,
              ...pageOf(urlParams),
              where: urlParams.application_spec_id === undefined ? [] : [sql`application_spec_id = ${urlParams.application_spec_id}`]
            })))
        .handle("delete", ({ path }) =>
          Effect.gen(function*() {
            const accounts = yield* callerAccounts
            yield* variants.transaction(Effect.flatMap(variants.get(path.application_variant_id, accounts), (variant) => variants.remove(variant.id)))
            return new GenericDeleteResponse({ count: 1, success: true })
          }))
    })
  ).pipe(Layer.provide(VariantsRepo.Default))

export const ThemesHttp = (group: ImplementGroup) =>
  group("themes", (handlers) =>
    Effect.gen(function*() {
      const themes = yield* ThemesRepo
      return handlers
        .handle("create", ({ payload }) =>
          Effect.gen(function*() {
            const account_id = yield* accountForWrite(payload.account_id)
            const [id, created_at] = yield* freshIdentity
            return yield* themes.insert(
              new Theme({
                id,
                account_id,
                title: payload.title,
                logo_blob: payload.logo_blob,
                theme_vars: new ThemeVarsAnswered({
                  accentPrimary: payload.theme_vars.accentPrimary ?? null,
                  accentSecondary: payload.theme_vars.accentSecondary ?? null,
                  background: payload.theme_vars.background ?? null,
                  foreground: payload.theme_vars.foreground ?? null
                }),
                archived_at: null,
                created_at,
                updated_at: created_at,
                created_by_user_id: (yield* createdBy).created_by_user_id
              }, true)
            )
          }))
        .handle("get", ({ path }) => Effect.flatMap(callerAccounts, (accounts) => themes.get(path.theme_id, accounts)))
        .handle("list", ({ urlParams }) =>
          Effect.flatMap(accountsForRead(urlParams.account_id), (accountIds) =>
            themes.page({ accountIds, ...pageOf(urlParams), where: themes.unlessArchived(urlParams.include_archived) })))
    })
  ).pipe(Layer.provide(ThemesRepo.Default))
