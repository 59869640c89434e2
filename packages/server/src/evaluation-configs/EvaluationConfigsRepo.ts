import { EvaluationConfig } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class EvaluationConfigsRepo
  extends Effect.Service<EvaluationConfigsRepo>()("@platform-kit/server/EvaluationConfigsRepo", {
    effect: makeDocuments({
      table: "evaluation_configs",
      label: "Evaluation config",
      schema: EvaluationConfig,
      columns: (config) => ({ id: config.id, account_id: config.account_id, created_at: config.created_at })
    })
  })
{}
