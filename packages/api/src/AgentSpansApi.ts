/**
 * Agentex's spans (docs/agent-tasks.md "Spans"): `/spans` in agentex's shape over the kit's one
 * span store, the v5 spans' (docs/spans.md).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { AgentSpan, AgentSpansListQuery, Conflict, CreateAgentSpan, Id, NotFound, UpdateAgentSpan } from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const SpanPath = Schema.Struct({ span_id: Id })

export class AgentSpansApi extends HttpApiGroup.make("agentSpans")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("create", "/spans")
      .setPayload(CreateAgentSpan)
      .addSuccess(AgentSpan)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Create an agent span")
      .annotate(
        OpenApi.Description,
        "Stores a span (a v5 span of the account: `data` is its `metadata`); `id` is the caller's, a UUID when absent; an id the account holds is a 409 (agentex: 400); a `task_id` that is not a task of the account is a 404."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/spans")
      .setUrlParams(AgentSpansListQuery)
      .addSuccess(Schema.Array(AgentSpan))
      .annotate(OpenApi.Summary, "List agent spans")
      .annotate(
        OpenApi.Description,
        "A page of the caller's spans as a bare array, newest start first: `trace_id` filters; `task_id` matches a span of the task or of the trace of that id."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/spans/:span_id")
      .setPath(SpanPath)
      .addSuccess(AgentSpan)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Get an agent span")
      .annotate(OpenApi.Description, "The span (any span of the caller's accounts, v5 ones included); 404 when none holds it.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/spans/:span_id")
      .setPath(SpanPath)
      .setPayload(UpdateAgentSpan)
      .addSuccess(AgentSpan)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update an agent span")
      .annotate(
        OpenApi.Description,
        "Changes the fields given and not null (none can be cleared); `data` is merged member by member into the span's `data` when both are objects."
      )
  )
  .annotate(OpenApi.Title, "Agent spans")
  .annotate(OpenApi.Description, "Spans of agents' traces (agentex), in the store of the v5 spans.")
{}
