import { ModelDeployment } from "@platform-kit/schema"
import { Effect } from "effect"
import { makeDocuments } from "../sql/documents.js"

/** An object field as the text its sort column holds: its JSON, or NULL when absent. */
const jsonText = (value: object | null) => (value === null ? null : JSON.stringify(value))

export class ModelDeploymentsRepo extends Effect.Service<ModelDeploymentsRepo>()(
  "@platform-kit/server/ModelDeploymentsRepo",
  {
    effect: makeDocuments({
      table: "model_deployments",
      label: "Model deployment",
      schema: ModelDeployment,
      columns: (deployment) => ({
        id: deployment.id,
        account_id: deployment.account_id,
        created_at: deployment.created_at,
        name: deployment.name,
        status: deployment.status,
        model_creation_parameters: jsonText(deployment.model_creation_parameters),
        model_endpoint_id: deployment.model_endpoint_id,
        model_instance_id: deployment.model_instance_id,
        vendor_configuration: jsonText(deployment.vendor_configuration),
        deployment_metadata: jsonText(deployment.deployment_metadata),
        created_by_user_id: deployment.created_by_user_id,
        created_by_identity_type: deployment.created_by_identity_type
      })
    })
  }
) {}
