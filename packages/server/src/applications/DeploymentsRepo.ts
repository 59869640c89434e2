import { ApplicationDeployment } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

export class DeploymentsRepo extends Effect.Service<DeploymentsRepo>()("@platform-kit/server/DeploymentsRepo", {
  effect: makeDocuments({
    table: "application_deployments",
    label: "Application deployment",
    schema: ApplicationDeployment,
    columns: (deployment) => ({
      id: deployment.id,
      account_id: deployment.account_id,
      created_at: deployment.created_at
    })
  })
}) {}
