import { Effect } from "effect"

/** The tables of applications. */
export default Effect.void
