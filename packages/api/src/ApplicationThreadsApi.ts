import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ApplicationGraphInvalid,
  BadGateway,
  ChatThread,
  ChatThreadFeedback,
  ChatThreadHistory,
  Conflict,
  CreateFeedback,
  CreateInteraction,
  Deleted,
  GatewayTimeout,
  Id,
  InteractionCreated,
  InteractionEntry,
  NotFound,
  ProcessApplicationVariant,
  ProcessResult,
  ThreadLookupQuery,
  ThreadMessagesQuery,
  UpdateChatThread,
  UpdateThreadMessage,
  UpstreamBadRequest,
  UpstreamRateLimited
} from "@platform-kit/schema"
import { Schema } from "effect"
import { Authentication } from "./security.js"

const ThreadPath = Schema.Struct({ thread_id: Id })
const MessagePath = Schema.Struct({ thread_id: Id, application_interaction_id: Id })

/** Chat threads of application variants, their messages and feedback, and interactions recorded from outside. */
export class ApplicationThreadsApi extends HttpApiGroup.make("applicationThreads")
  .middleware(Authentication)
  .add(
    HttpApiEndpoint.post("process", "/v4/applications/:application_variant_id/threads/:thread_id/process")
      .setPath(Schema.Struct({ application_variant_id: Id, thread_id: Id }))
      .setPayload(ProcessApplicationVariant)
      .addSuccess(ProcessResult)
      .addError(NotFound)
      .addError(Conflict)
      .addError(ApplicationGraphInvalid)
      .addError(UpstreamBadRequest)
      .addError(UpstreamRateLimited)
      .addError(BadGateway)
      .addError(GatewayTimeout)
      .annotate(OpenApi.Summary, "Process a variant in a chat thread")
      .annotate(
        OpenApi.Description,
        "Processes the V0 variant as `/v4/applications/{id}/process` does, with the thread's earlier turns as the history; the interaction is the thread's next message. A thread id no thread has starts a thread of the variant."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v4/applications/:application_variant_id/threads")
      .setPath(Schema.Struct({ application_variant_id: Id }))
      .addSuccess(Schema.Array(ChatThread))
      .addError(NotFound)
      .annotate(OpenApi.Summary, "List a variant's chat threads")
      .annotate(OpenApi.Description, "The variant's threads (archived ones too), newest first, as a bare array.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v4/threads/:thread_id")
      .setPath(ThreadPath)
      .setPayload(UpdateChatThread)
      .addSuccess(ChatThread)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Update a chat thread")
      .annotate(OpenApi.Description, "Changes `title`, `thread_metadata`; `archived_at` a date-time archives it, `null` restores it.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/v4/threads/:thread_id")
      .setPath(ThreadPath)
      .addSuccess(Deleted)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a chat thread")
      .annotate(OpenApi.Description, "Deletes the thread and its messages' feedback; its interactions stay recorded (and counted by the metrics).")
  )
  .add(
    HttpApiEndpoint.get("messages", "/v4/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setUrlParams(ThreadMessagesQuery)
      .addSuccess(ChatThreadHistory)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Read a chat thread's messages")
      .annotate(
        OpenApi.Description,
        "The thread, its spec, and its messages oldest first: each the interaction, its feedback, and with `fetch_spans=true` its spans. A thread of another user of the account needs `fetch_by_account=true`."
      )
  )
  .add(
    HttpApiEndpoint.patch("updateMessage", "/v4/threads/:thread_id/messages/:application_interaction_id")
      .setPath(MessagePath)
      .setUrlParams(ThreadLookupQuery)
      .setPayload(UpdateThreadMessage)
      .addSuccess(InteractionEntry)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Change a message's answer")
      .annotate(OpenApi.Description, "`output_text` replaces the answer's text; answers the message's interaction.")
  )
  .add(
    HttpApiEndpoint.post("createFeedback", "/v4/threads/:thread_id/messages/:application_interaction_id/feedback")
      .setPath(MessagePath)
      .setPayload(CreateFeedback)
      .addSuccess(ChatThreadFeedback)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Give feedback on a message (kit extension)")
      .annotate(
        OpenApi.Description,
        "`sentiment` positive or negative, with a `description`; replaces the message's earlier feedback and feeds the `feedback` metric (thumbs up or down on the interaction)."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteFeedback", "/v4/threads/:thread_id/messages/:application_interaction_id/feedback")
      .setPath(MessagePath)
      .addSuccess(Deleted)
      .addError(NotFound)
      .annotate(OpenApi.Summary, "Delete a message's feedback")
      .annotate(OpenApi.Description, "Removes it (and the interaction's thumbs); 404 when the message has none.")
  )
  .add(
    HttpApiEndpoint.post("createInteraction", "/v4/interactions/")
      .setPayload(CreateInteraction)
      .addSuccess(InteractionCreated)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Summary, "Record an interaction from outside")
      .annotate(
        OpenApi.Description,
        "Records one interaction of a stored variant (404 otherwise): its input, output, timing, status, metadata and trace spans; `thread_id` makes it a message of that thread, starting the thread when none has the id. `guardrail_results` must be empty: the kit keeps no guardrails."
      )
  )
  .annotate(OpenApi.Title, "Application threads and interactions")
  .annotate(OpenApi.Description, "Chat threads of application variants, their messages and feedback, and interactions recorded from outside.")
{}
