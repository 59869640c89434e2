import { Effect } from "effect"

/** The tables of credentials. */
export default Effect.void
