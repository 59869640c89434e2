import { Effect } from "effect"

/** The tables of evaluation datasets. */
export default Effect.void
