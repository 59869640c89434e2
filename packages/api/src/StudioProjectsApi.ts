import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CreateStudioProject,
  GenericDeleteResponse,
  Id,
  NotFound,
  StudioProject,
  UpdateStudioProject,
  V4ListQuery,
  V4Page
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const StudioProjectPath = Schema.Struct({ studio_project_id: Id })

export class StudioProjectsApi extends HttpApiGroup.make("studioProjects")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/v4/studio-projects")
      .setPayload(CreateStudioProject)
      .addSuccess(StudioProject)
      .annotate(OpenApi.Summary, "Create a Studio project")
      .annotate(
        OpenApi.Description,
        "A Studio project of the account; its `studio_api_key` is sealed at rest and never answered."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/v4/studio-projects/:studio_project_id")
      .setPath(StudioProjectPath)
      .addSuccess(StudioProject)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get a Studio project")
      .annotate(OpenApi.Description, "The project (never its key); 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/studio-projects/:studio_project_id")
      .setPath(StudioProjectPath)
      .setPayload(UpdateStudioProject)
      .addSuccess(StudioProject)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a Studio project")
      .annotate(OpenApi.Description, "Changes the fields given; a `studio_api_key` replaces the sealed key.")
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/studio-projects")
      .setUrlParams(V4ListQuery)
      .addSuccess(V4Page(StudioProject))
      .annotate(OpenApi.Summary, "List Studio projects")
      .annotate(
        OpenApi.Description,
        "The projects of the caller's accounts (`account_id` narrows to one), newest first, as a v4 page (`page`, `limit`)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/studio-projects/:studio_project_id")
      .setPath(StudioProjectPath)
      .addSuccess(GenericDeleteResponse)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a Studio project")
      .annotate(
        OpenApi.Description,
        "Deletes the project and its sealed key for good (`{count: 1, success: true}`; there is no restore); configs that name it keep the id."
      )
  )
  .annotate(OpenApi.Title, "Studio projects")
  .annotate(OpenApi.Description, "Studio projects: where a `studio` evaluation config's annotation happens, with the project's Studio API key.")
{}
