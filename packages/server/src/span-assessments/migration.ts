import { Effect } from "effect"

/** The tables of span assessments. */
export default Effect.void
