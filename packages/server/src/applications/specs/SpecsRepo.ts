import { ApplicationSpec, ApplicationVariant, Theme } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../../sql/documents.js"

export class SpecsRepo extends Effect.Service<SpecsRepo>()("@platform-kit/server/ApplicationSpecsRepo", {
  effect: makeDocuments({
    table: "application_specs",
    label: "Application spec",
    schema: ApplicationSpec,
    columns: (spec) => ({ id: spec.id, account_id: spec.account_id, created_at: spec.created_at, archived_at: spec.archived_at ?? null })
  })
}) {}

export class VariantsRepo extends Effect.Service<VariantsRepo>()("@platform-kit/server/ApplicationVariantsRepo", {
  effect: makeDocuments({
    table: "application_variants",
    label: "Application variant",
    schema: ApplicationVariant,
    columns: (variant) => ({
      id: variant.id,
      account_id: variant.account_id,
      created_at: variant.created_at,
      application_spec_id: variant.application_spec_id
    })
  })
}) {}

export class ThemesRepo extends Effect.Service<ThemesRepo>()("@platform-kit/server/ThemesRepo", {
  effect: makeDocuments({
    table: "application_themes",
    label: "Theme",
    schema: Theme,
    columns: (theme) => ({ id: theme.id, account_id: theme.account_id, created_at: theme.created_at, archived_at: theme.archived_at ?? null })
  })
}) {}
