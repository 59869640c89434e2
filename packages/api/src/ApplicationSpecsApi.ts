import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApplicationGraphInvalid,
  ApplicationSpec,
  ApplicationVariant,
  ApplicationVariantListQuery,
  ArchivableListQuery,
  CreateApplicationSpec,
  CreateApplicationVariant,
  CreateTheme,
  GenericDeleteResponse,
  Id,
  NotFound,
  PatchApplicationVariant,
  Theme,
  UpdateApplicationSpec,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const SpecPath = Schema.Struct({ application_spec_id: Id })
const VariantPath = Schema.Struct({ application_variant_id: Id })

export class ApplicationSpecsApi extends HttpApiGroup.make("applicationSpecs")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/application-specs")
      .setPayload(CreateApplicationSpec)
      .addSuccess(ApplicationSpec)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Create an application spec")
      .annotate(
        OpenApi.Description,
        "An application: `name`, `description`, `run_online_evaluation` (default false), and a `theme_id` naming a theme of the account (else 404)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/application-specs/:application_spec_id")
      .setPath(SpecPath)
      .addSuccess(ApplicationSpec)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application spec")
      .annotate(OpenApi.Description, "The spec, archived or not (`archived_at` set when it is).")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/application-specs/:application_spec_id")
      .setPath(SpecPath)
      .setPayload(UpdateApplicationSpec)
      .addSuccess(ApplicationSpec)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update or restore an application spec")
      .annotate(
        OpenApi.Description,
        "Changes the fields given; `{\"restore\": true}` alone restores an archived spec."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/application-specs")
      .setUrlParams(ArchivableListQuery)
      .addSuccess(V4Page(ApplicationSpec))
      .annotate(OpenApi.Summary, "List application specs")
      .annotate(OpenApi.Description, "The specs of the caller's accounts, newest first; archived ones with `include_archived=true`.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/application-specs/:application_spec_id")
      .setPath(SpecPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Archive an application spec")
      .annotate(
        OpenApi.Description,
        "Archives the spec (`archived_at` set; hidden from lists unless `include_archived`; restored by `PATCH {\"restore\": true}`); its variants stay."
      )
  )
  .annotate(OpenApi.Title, "Application specs")
  .annotate(OpenApi.Description, "Applications: a spec names an application, its variants are its versions.")
{}

export class ApplicationVariantsApi extends HttpApiGroup.make("applicationVariants")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/application-variants")
      .setPayload(CreateApplicationVariant)
      .addSuccess(ApplicationVariant)
      .addError(NotFound)
      .addError(ApplicationGraphInvalid)
      .annotate(OpenApi.Summary, "Create an application variant")
      .annotate(
        OpenApi.Description,
        "A version of a spec of the account (else 404): `version` `V0` (a graph, validated as `/v4/applications/validate` does unless `draft`), `AGENTS_SERVICE` or `OFFLINE`, with the configuration of that version."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/application-variants/:application_variant_id")
      .setPath(VariantPath)
      .addSuccess(ApplicationVariant)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an application variant")
      .annotate(OpenApi.Description, "The variant, with its `version` and configuration.")
  )
  .add(
    HttpApiEndpoint.patch("patch", "/v4/application-variants/:application_variant_id")
      .setPath(VariantPath)
      .setPayload(PatchApplicationVariant)
      .addSuccess(ApplicationVariant)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Patch an application variant")
      .annotate(
        OpenApi.Description,
        "Changes `name`, `description`, and merges `configuration` fields into the variant's (`metadata` for every version; `params`, `raw_configuration`, `type` for agents-service variants: on another version a 422)."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/application-variants")
      .setUrlParams(ApplicationVariantListQuery)
      .addSuccess(V4Page(ApplicationVariant))
      .annotate(OpenApi.Summary, "List application variants")
      .annotate(OpenApi.Description, "The variants of the caller's accounts (`application_spec_id` narrows to one spec's), newest first.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/application-variants/:application_variant_id")
      .setPath(VariantPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete an application variant")
      .annotate(OpenApi.Description, "Deletes the variant; deployments and interactions that name it keep its id.")
  )
  .annotate(OpenApi.Title, "Application variants")
  .annotate(OpenApi.Description, "The versions of an application: a V0 graph, an agents-service configuration, or an offline application.")
{}

export class ThemesApi extends HttpApiGroup.make("themes")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/themes")
      .setPayload(CreateTheme)
      .addSuccess(Theme)
      .annotate(OpenApi.Summary, "Create a theme")
      .annotate(OpenApi.Description, "A chat theme: `title`, `logo_blob` (kept as given), `theme_vars` (`accentPrimary`, `accentSecondary`, `background`, `foreground`).")
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/themes/:theme_id")
      .setPath(Schema.Struct({ theme_id: Id }))
      .addSuccess(Theme)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a theme")
      .annotate(OpenApi.Description, "The theme; 404 when it is missing or in none of the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/themes")
      .setUrlParams(ArchivableListQuery)
      .addSuccess(V4Page(Theme))
      .annotate(OpenApi.Summary, "List themes")
      .annotate(OpenApi.Description, "The themes of the caller's accounts, newest first.")
  )
  .annotate(OpenApi.Title, "Themes")
  .annotate(OpenApi.Description, "Chat themes an application spec may name.")
{}
