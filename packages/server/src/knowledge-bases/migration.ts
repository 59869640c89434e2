import { Effect } from "effect"

/** The tables of knowledge bases. */
export default Effect.void
