import { Effect } from "effect"

/** The tables of questions. */
export default Effect.void
