import { EvaluationDataset } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class EvaluationDatasetsRepo extends Effect.Service<EvaluationDatasetsRepo>()(
  "@platform-kit/server/EvaluationDatasetsRepo",
  {
    effect: makeDocuments({
      table: "evaluation_datasets",
      label: "Evaluation dataset",
      schema: EvaluationDataset,
      columns: (dataset) => ({
        id: dataset.id,
        account_id: dataset.account_id,
        created_at: dataset.created_at,
        knowledge_base_id: dataset.knowledge_base_id
      })
    })
  }
) {}
