import { Effect } from "effect"

/** The tables of evaluations. */
export default Effect.void
