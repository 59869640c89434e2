/** The text input and output nodes: where a request's text comes in and its answer goes out. */
import { Effect } from "effect"
import { input, type NodeKind, output, text } from "./kit.js"

export const textInput: NodeKind = {
  id: "text_input_schema",
  type: "TEXT_INPUT_NODE",
  operationType: "TEXT_INPUT",
  name: "Text input",
  tags: ["INPUT_NODE"],
  configuration: { "input-text": text("Label", "What the input asks for (shown to a user)", false) },
  inputs: {},
  outputs: { "input-text": output("input-text", "TEXT", "The text given in the request's inputs under this node's id") },
  requestInput: { name: "input-text", expected: "text", valid: (value) => typeof value === "string" },
  prepare: () => Effect.succeed((inputs) => Effect.succeed({ outputs: { "input-text": inputs["input-text"] } }))
}

export const textOutput: NodeKind = {
  id: "text_output_schema",
  type: "TEXT_OUTPUT_NODE",
  operationType: "TEXT_OUTPUT",
  name: "Text output",
  tags: ["OUTPUT_NODE"],
  configuration: { completion: text("Label", "What the output shows (shown to a user)", false) },
  inputs: {
    "output-text": input("output-text", "TEXT", "The answer"),
    metadata: input("metadata", "CHUNK_ARRAY", "What the answer rests on (chunks)", false)
  },
  outputs: {},
  prepare: () => Effect.succeed((inputs) => Effect.succeed({ outputs: inputs }))
}
