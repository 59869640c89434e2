/**
 * Migration 0023: agent runtime deployments get a `status` column (the document's, indexed): the
 * engine finds the deployments whose lifecycle is unfinished when it starts, and a deployment that
 * becomes ready finds the older ones of its preview label to supersede (docs/agent-runtime.md).
 */
import { statusColumnFromDocuments } from "../sql/statusColumn.js"

export default statusColumnFromDocuments("agent_runtime_deployments")
