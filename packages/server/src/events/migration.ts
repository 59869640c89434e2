import { Effect } from "effect"

/** The tables of agent task events. */
export default Effect.void
