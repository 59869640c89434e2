import { KnowledgeBase } from "@platform-kit/schema"
import { Effect, Schema, Struct } from "effect"
import { makeDocuments } from "../sql/documents.js"

/**
 * A knowledge base as stored: every field of the resource except the ones computed on read
 * (`artifacts_status` and the view fields).
 */
export class StoredKnowledgeBase extends Schema.Class<StoredKnowledgeBase>("StoredKnowledgeBase")(
  Struct.omit(KnowledgeBase.fields, "artifacts_status", "connections", "artifact_count", "kb_index_configuration")
) {}

export class KnowledgeBasesRepo extends Effect.Service<KnowledgeBasesRepo>()("@platform-kit/server/KnowledgeBasesRepo", {
  effect: makeDocuments({
    table: "knowledge_bases",
    label: "Knowledge base",
    schema: StoredKnowledgeBase,
    columns: (kb) => ({ id: kb.knowledge_base_id, account_id: kb.account_id, created_at: kb.created_at })
  })
}) {}
