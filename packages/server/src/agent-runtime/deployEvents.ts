/**
 * The `deploy_events` of an agent runtime deployment's lifecycle (docs/agent-runtime.md), in
 * Kubernetes' event vocabulary: type `Normal` or `Warning`, a CamelCase reason, a sentence.
 * Provisioning is simulated: no Helm release is installed.
 */
import { AgentRuntimeDeployEvent, type AgentRuntimeDeployment } from "@platform-kit/schema"

const normal = (reason: string, message: string, timestamp: string) =>
  new AgentRuntimeDeployEvent({ type: "Normal", reason, message, timestamp })

export const createdEvent = (deployment: { readonly build_id: string; readonly agent_name?: string | null | undefined }, now: string) =>
  normal(
    "Created",
    deployment.agent_name === undefined || deployment.agent_name === null
      ? `Deployment of build ${deployment.build_id} created`
      : `Deployment of build ${deployment.build_id} (agent ${deployment.agent_name}) created`,
    now
  )

export const deployingEvent = (deployment: AgentRuntimeDeployment, now: string) =>
  normal(
    "Deploying",
    `Installing Helm release ${deployment.helm_release_name ?? deployment.id} in namespace ${
      deployment.namespace ?? "default"
    } (simulated)`,
    now
  )

export const readyEvent = (now: string) => normal("Ready", "Deployment is ready", now)

/** The deployment failed (a fault rule's reason, docs/control-plane.md). */
export const failedEvent = (reason: string, now: string) =>
  new AgentRuntimeDeployEvent({ type: "Warning", reason: "Failed", message: reason, timestamp: now })

export const supersededEvent = (by: string, now: string) => normal("Superseded", `Superseded by deployment ${by}`, now)

export const expiredEvent = (expiresAt: string, now: string) => normal("Expired", `Preview expired at ${expiresAt}`, now)

export const deletedEvent = (now: string) => normal("Deleted", "Deployment deleted", now)
