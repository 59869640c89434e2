import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AppendEvent, EventsQuery, Id, NotFound, TaskEvent } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

export class EventsApi extends HttpApiGroup.make("events")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("append", "/events")
      .setPayload(AppendEvent)
      .addSuccess(TaskEvent)
      .annotate(OpenApi.Summary, "Append an agent task event")
      .annotate(
        OpenApi.Description,
        "Appends an event to the task's stream in the request's account; its `sequence_id` is the next of that stream."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/events/:event_id")
      .setPath(Schema.Struct({ event_id: Id }))
      .addSuccess(TaskEvent)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent task event")
      .annotate(OpenApi.Description, "Answers the event; 404 when it is not in the caller's accounts.")
  )
  .add(
    HttpApiEndpoint.get("list", "/events")
      .setUrlParams(EventsQuery)
      .addSuccess(Schema.Array(TaskEvent))
      .annotate(OpenApi.Summary, "List agent task events")
      .annotate(
        OpenApi.Description,
        "Answers the agent's events of the task (`task_id`, `agent_id` required) after `last_processed_event_id`, by ascending `sequence_id`, at most `limit` (default 100), as a bare array."
      )
  )
  .annotate(OpenApi.Title, "Agent task events")
  .annotate(
    OpenApi.Description,
    "Agent task events: each task's stream of events, which agents append to and read in order."
  )
{}
