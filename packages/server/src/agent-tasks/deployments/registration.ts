/**
 * What a registration (`POST /agents/register`) does to an agent's deployments and its history
 * (docs/agent-tasks.md "Deployments"), as agentex's server does it: one naming a deployment
 * (`registration_metadata.deployment_id`) makes that deployment `Ready` at the registering ACP
 * server, made with that id if it is new; one naming none takes the agent out of its deployments
 * (its own URL is its route again); a registration of a new build, and a promote of a deployment
 * of a new commit (deployments/http.ts), add to the history. Run inside the registration's (or the
 * promote's) transaction.
 */
import { ValidationError, ValidationIssue } from "@platform-kit/schema"
import { Effect, Option } from "effect"
import { Ids } from "../../platform/Ids.js"
import { type AgentConnection, deploymentSealedFor, type StoredAgent } from "../agents/AgentsRepo.js"
import { deployedCommit, historyEntry, registeredBuild } from "../deployment-history/entries.js"
import { HistoryRepo } from "../deployment-history/HistoryRepo.js"
import { DeploymentsRepo, type StoredDeployment } from "./DeploymentsRepo.js"

type Metadata = Readonly<Record<string, unknown>> | null

/**
 * The deployment a registration names: `registration_metadata.deployment_id`, a non-empty string
 * (absent or `null`: none); anything else is a 422 at its place.
 */
export const deploymentNamed = (metadata: Readonly<Record<string, unknown>> | null | undefined) => {
  const named = metadata?.deployment_id
  if (named === undefined || named === null) return Effect.succeed(undefined)
  if (typeof named === "string" && named.length > 0 && named.length <= 200) return Effect.succeed(named)
  return Effect.fail(
    new ValidationError({
      detail: [
        new ValidationIssue({
          loc: ["body", "registration_metadata", "deployment_id"],
          msg: "A deployment id is a string of 1 to 200 characters",
          type: "value_error",
          input: named
        })
      ]
    })
  )
}

export const makeRegistrations = Effect.gen(function*() {
  const deployments = yield* DeploymentsRepo
  const history = yield* HistoryRepo
  const ids = yield* Ids

  /**
   * Deployment `id` of `agent` registered at the ACP server `connect` seals the key of: `Ready`
   * there; made (not production, its image the metadata's `docker_image`, else `"unknown"`) if
   * the agent has none of that id (another agent's deployment of the same id is another one).
   */
  const ready = (
    agent: StoredAgent,
    id: string,
    metadata: Readonly<Record<string, unknown>> | null,
    connect: (sealedFor: string) => Effect.Effect<AgentConnection>,
    now: string
  ) =>
    Effect.gen(function*() {
      const connection = yield* connect(deploymentSealedFor(agent.id, id))
      const found = yield* deployments.find(id, agent.id, [agent.account_id])
      if (Option.isSome(found)) {
        return yield* deployments.update({ ...found.value, status: "Ready", acp_url: connection.acpUrl }, connection)
      }
      const image = metadata?.docker_image
      return yield* deployments.insert({
        id,
        agent_id: agent.id,
        docker_image: typeof image === "string" && image.length > 0 ? image : "unknown",
        is_production: false,
        status: "Ready",
        acp_url: connection.acpUrl,
        created_at: now,
        expires_at: null,
        helm_release_name: null,
        promoted_at: null,
        registration_metadata: metadata,
        sgp_deploy_id: null,
        account_id: agent.account_id
      }, connection)
    })

  /** `agent` out of its production deployment, if it has one (a registration naming no deployment is its route again). */
  const leaveProduction = (agent: StoredAgent) =>
    Effect.flatMap(deployments.production(agent.id, agent.account_id), (current) =>
      Option.isNone(current) ? Effect.void : Effect.asVoid(deployments.update({ ...current.value, is_production: false })))

  /**
   * An entry of `agent` for `commit` going live at `at` (described by `metadata`), unless the
   * agent's latest entry is of that commit already: the one guard of registrations and promotes.
   */
  const record = (agent: StoredAgent, commit: string, metadata: Metadata, at: string) =>
    Effect.gen(function*() {
      const latest = yield* history.latestCommit(agent.id, agent.account_id)
      if (Option.isSome(latest) && latest.value === commit) return
      yield* history.insert(historyEntry({ id: yield* ids.make, accountId: agent.account_id, agentId: agent.id, metadata, at, commit }))
    })

  /**
   * The history entry of a registered build (as agentex): when the agent's metadata names its
   * commit (`agent_commit`) and branch (`branch_name`), and its latest entry is of another commit.
   */
  const recordBuild = (agent: StoredAgent, now: string) => {
    const build = registeredBuild(agent.registration_metadata)
    return build === undefined ? Effect.void : record(agent, build.commit, agent.registration_metadata, agent.registered_at ?? now)
  }

  /**
   * The history entry of a promotion of `deployment` at `at`: when its metadata names a commit
   * (`commit_hash`, else `agent_commit`) and the agent's latest entry is of another commit.
   */
  const recordPromotion = (agent: StoredAgent, deployment: StoredDeployment, at: string) => {
    const commit = deployedCommit(deployment.registration_metadata)
    return commit === undefined ? Effect.void : record(agent, commit, deployment.registration_metadata, at)
  }

  return { ready, leaveProduction, recordBuild, recordPromotion } as const
})
