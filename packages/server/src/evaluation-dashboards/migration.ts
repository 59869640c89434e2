import { Effect } from "effect"

/** The tables of evaluation dashboards. */
export default Effect.void
