/**
 * The external endpoint node (docs/applications.md "External endpoints"): an HTTP call the node's
 * configuration names, its answer's text (or a field of its JSON) the node's output. What the
 * server lets it call and how the call is bounded: ../externalEndpoints.ts.
 */
import { BadGateway, UpstreamBadRequest } from "@platform-kit/schema"
import { Effect } from "effect"
import { render } from "../mustache.js"
import { templateOf } from "./completion.js"
import {
  asText,
  ConfigurationProblem,
  input,
  type NodeKind,
  number,
  optionalNumber,
  optionalText,
  output,
  text
} from "./kit.js"

const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
const timeoutMs = number("Timeout (ms)", "How long the endpoint has to answer whole", { min: 1, max: 60_000, default: 10_000 })

/** The value at a dotted path (`a.b.0.c`) of a JSON value, `undefined` when there is none. */
const at = (value: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>(
    (current, key) => (current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined),
    value
  )

/** A node's headers: a JSON object of texts, or why not. */
const headersOf = (nodeId: string, configured: string | undefined) => {
  if (configured === undefined) return Effect.succeed({} as Record<string, string>)
  const problem = new ConfigurationProblem(`Node '${nodeId}': configuration 'headers' must be a JSON object of texts ({"value": "{\\"x-key\\": \\"…\\"}"})`)
  return Effect.flatMap(Effect.try({ try: () => JSON.parse(configured) as unknown, catch: () => problem }), (parsed) =>
    parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) && Object.values(parsed).every((value) => typeof value === "string")
      ? Effect.succeed(parsed as Record<string, string>)
      : Effect.fail(problem))
}

export const externalEndpoint: NodeKind = {
  id: "external_endpoint_schema",
  type: "EXTERNAL_ENDPOINT_NODE",
  operationType: "EXTERNAL_ENDPOINT",
  name: "External endpoint",
  tags: [],
  configuration: {
    url: text("URL", "The http(s) URL to call; {{input}} in its path or query is the input, URL-encoded (the host is fixed)", true),
    method: text("Method", "GET, POST (the default), PUT, PATCH or DELETE", false, true),
    headers: text("Headers", "A JSON object of header names and values, sent as they are", false, true),
    body_template: text(
      "Body template",
      "A Mustache template over the inputs ({{input}}, {{#chunks}}{{text}}{{/chunks}}; {{json.input}} and {{json.chunks}} JSON-encoded); by default the inputs as a JSON object",
      false,
      true
    ),
    response_field: text("Response field", "A dotted path in the JSON answer (data.0.text) to output; the answer's whole text when left out", false, true),
    timeout_ms: timeoutMs
  },
  inputs: {
    input: input("input", "TEXT", "The text to send", false),
    chunks: input("chunks", "CHUNK_ARRAY", "Chunks to send", false)
  },
  outputs: { output: output("output", "TEXT", "The endpoint's answer (or its response_field)") },
  prepare: (nodeId, configuration, runtime) =>
    Effect.gen(function*() {
      const problem = (message: string) => new ConfigurationProblem(`Node '${nodeId}': ${message}`)
      const urlTemplate = optionalText(configuration, "url") ?? ""
      // the scheme and host written out, never from a template (nor a form URL parsers read a host
      // from without `//`, `http:/{{input}}host`): the host checked here is the host called
      if (!/^https?:\/\/[^/?#{}\\\s]+(?:[/?#]|$)/i.test(urlTemplate)) {
        return yield* Effect.fail(problem("configuration 'url' must start with http:// or https:// and a host written out (the host may not come from a template)"))
      }
      const plain = yield* Effect.try({ try: () => render(urlTemplate, {}), catch: () => problem("configuration 'url' does not parse as a template") })
      if (!URL.canParse(plain)) return yield* Effect.fail(problem(`configuration 'url' is not a URL: ${urlTemplate}`))
      const checked = new URL(plain)
      const refused = runtime.endpointRefusal(checked)
      if (refused !== undefined) return yield* Effect.fail(problem(refused))
      const method = (optionalText(configuration, "method") ?? "POST").toUpperCase()
      if (!(methods as ReadonlyArray<string>).includes(method)) {
        return yield* Effect.fail(problem(`configuration 'method' must be one of ${methods.join(", ")}`))
      }
      const headers = yield* headersOf(nodeId, optionalText(configuration, "headers"))
      const bodyTemplate = optionalText(configuration, "body_template") === undefined ? undefined : yield* templateOf(nodeId, configuration, "body_template")
      if (bodyTemplate !== undefined && method === "GET") return yield* Effect.fail(problem("a GET sends no body: leave 'body_template' out"))
      const field = optionalText(configuration, "response_field")
      const timeout = (yield* optionalNumber(nodeId, configuration, "timeout_ms", timeoutMs))!

      return (inputs) =>
        Effect.gen(function*() {
          const url = yield* Effect.try({
            try: () => new URL(render(urlTemplate, { input: encodeURIComponent(asText(inputs.input)) })),
            catch: () => new UpstreamBadRequest({ detail: `The external endpoint URL ${urlTemplate} does not make a URL with this input` })
          })
          if (url.origin !== checked.origin) {
            return yield* Effect.fail(new UpstreamBadRequest({ detail: `The external endpoint URL ${urlTemplate} made another host with this input` }))
          }
          const json = Object.fromEntries(Object.entries(inputs).map(([name, value]) => [name, JSON.stringify(value)]))
          const body = method === "GET"
            ? undefined
            : bodyTemplate === undefined
            ? JSON.stringify(inputs)
            : render(bodyTemplate, { ...inputs, json })
          const answer = yield* runtime.callEndpoint({ url, method, headers, body, timeoutMs: timeout })
          const where = `${url.origin}${url.pathname}`
          if (answer.status < 200 || answer.status >= 300) {
            return yield* Effect.fail(
              new BadGateway({ detail: `The external endpoint ${where} answered ${answer.status}: ${answer.text.slice(0, 200) || "no reason given"}` })
            )
          }
          if (field === undefined) return { outputs: { output: answer.text } }
          const parsed = yield* Effect.try({
            try: () => JSON.parse(answer.text) as unknown,
            catch: () => new BadGateway({ detail: `The external endpoint ${where} answered no JSON to read '${field}' from` })
          })
          const value = at(parsed, field)
          if (value === undefined) {
            return yield* Effect.fail(new BadGateway({ detail: `The external endpoint ${where} answered no field '${field}'` }))
          }
          return { outputs: { output: asText(value) } }
        })
    })
}
