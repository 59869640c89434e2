import { Effect } from "effect"

/** The tables of evaluation configs. */
export default Effect.void
