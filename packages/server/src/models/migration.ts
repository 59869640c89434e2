import { Effect } from "effect"

/** The tables of model deployments and servers. */
export default Effect.void
