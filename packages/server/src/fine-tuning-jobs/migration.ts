import { Effect } from "effect"

/** The tables of fine-tuning jobs. */
export default Effect.void
