/**
 * The entries of the deployment history (docs/agent-tasks.md "Deployments"), made from build
 * metadata as agentex makes them: the author's name and email, else `"N/A"`; `build_timestamp`
 * when it is a date, else when it went live.
 */
import type { StoredHistory } from "./HistoryRepo.js"

type Metadata = Readonly<Record<string, unknown>> | null

const text = (metadata: Metadata, key: string): string | undefined => {
  const value = metadata?.[key]
  return typeof value === "string" && value.length > 0 ? value : undefined
}

/** A date of the metadata as the wire's ISO text, if it is one. */
const date = (metadata: Metadata, key: string): string | undefined => {
  const value = text(metadata, key)
  const time = value === undefined ? Number.NaN : Date.parse(value)
  return Number.isNaN(time) ? undefined : new Date(time).toISOString()
}

/** The commit and branch a registration's metadata names (agentex's `agent_commit`, `branch_name`), when it names both. */
export const registeredBuild = (metadata: Metadata) => {
  const commit = text(metadata, "agent_commit")
  const branch = text(metadata, "branch_name")
  return commit === undefined || branch === undefined ? undefined : { commit, branch }
}

/**
 * The commit a promoted deployment's metadata names: `commit_hash` (the create docstring's), else
 * `agent_commit` (a registration's: the spec's A8), if any.
 */
export const deployedCommit = (metadata: Metadata) => text(metadata, "commit_hash") ?? text(metadata, "agent_commit")

/** An entry of agent `agentId` for `commit` going live at `at`, described by `metadata`. */
export const historyEntry = (options: {
  readonly id: string
  readonly accountId: string
  readonly agentId: string
  readonly metadata: Metadata
  readonly at: string
  readonly commit: string
}): StoredHistory => ({
  id: options.id,
  agent_id: options.agentId,
  commit_hash: options.commit,
  branch_name: text(options.metadata, "branch_name") ?? "N/A",
  author_name: text(options.metadata, "author_name") ?? "N/A",
  author_email: text(options.metadata, "author_email") ?? "N/A",
  build_timestamp: date(options.metadata, "build_timestamp") ?? options.at,
  deployment_timestamp: options.at,
  account_id: options.accountId
})
