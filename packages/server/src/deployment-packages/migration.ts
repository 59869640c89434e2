import { Effect } from "effect"

/** The tables of deployment packages. */
export default Effect.void
