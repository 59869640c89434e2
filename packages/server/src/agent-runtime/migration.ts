import { Effect } from "effect"

/** The tables of agent runtime deployments. */
export default Effect.void
