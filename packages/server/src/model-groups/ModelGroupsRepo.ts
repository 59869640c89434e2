import { ModelGroup } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class ModelGroupsRepo extends Effect.Service<ModelGroupsRepo>()("@platform-kit/server/ModelGroupsRepo", {
  effect: makeDocuments({
    table: "model_groups",
    label: "Model group",
    schema: ModelGroup,
    columns: (group) => ({ id: group.id, account_id: group.account_id, created_at: group.created_at })
  })
}) {}
