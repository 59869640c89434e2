import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AppendEvent, EventsQuery, Id, NotFound, TaskEvent } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class EventsApi extends HttpApiGroup.make("events")
  .middleware(Authentication)
  .add(HttpApiEndpoint.post("append", "/events").setPayload(AppendEvent).addSuccess(TaskEvent))
  .add(
    HttpApiEndpoint.get("get", "/events/:event_id")
      .setPath(Schema.Struct({ event_id: Id }))
      .addSuccess(TaskEvent)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("list", "/events").setUrlParams(EventsQuery).addSuccess(Schema.Array(TaskEvent)))
  .annotate(OpenApi.Title, "Agent task events")
{}
