/**
 * The HTTP calls of external endpoint nodes (docs/applications.md "External endpoints"): the hosts
 * the server lets a node call (`PLATFORM_EXTERNAL_ENDPOINT_HOSTS`; none by default: a node's URL
 * is a caller's, and the server would otherwise call, and answer with, whatever it can reach on
 * its own network), and the call itself, on the client of the model upstreams
 * (models/inference/upstreamHttpClient.ts): bounded by a deadline that aborts it, its answer read
 * as it comes and cut off past `maxResponseBytes`. Redirects are not followed (an answer 3xx is
 * the endpoint's answer).
 */
import { HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { BadGateway, GatewayTimeout, type UpstreamError } from "@platform-kit/schema"
import { Effect, Scope, Stream } from "effect"
import { ExternalEndpointHosts } from "../../config.js"
import * as UpstreamHttpClient from "../../models/inference/upstreamHttpClient.js"
import type { EndpointAnswer, EndpointCall } from "./nodes/kit.js"

/** The most an endpoint's answer may hold: 1 MiB (a node's output is kept in its span and the interaction). */
export const maxResponseBytes = 1024 * 1024

/** One entry of the allowed hosts: `*`, `host`, `*.domain`, each perhaps with `:port`. */
interface HostRule {
  readonly host: string
  readonly port: string | undefined
}

const ruleOf = (entry: string): HostRule => {
  const lower = entry.trim().toLowerCase()
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(lower)
  return match === null ? { host: lower, port: undefined } : { host: match[1]!, port: match[2] }
}

const defaultPort = (url: URL) => (url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80")

const matches = (rule: HostRule, url: URL) => {
  const host = url.hostname.toLowerCase()
  if (rule.port !== undefined && rule.port !== defaultPort(url)) return false
  if (rule.host === "*") return true
  if (rule.host.startsWith("*.")) return host.endsWith(rule.host.slice(1))
  return host === rule.host
}

class TooLarge {
  readonly _tag = "TooLarge"
}

/** The body's bytes, failing once they pass `cap`. */
const capped = <E>(body: Stream.Stream<Uint8Array, E>, cap: number) =>
  Effect.suspend(() => {
    const parts: Array<Uint8Array> = []
    let size = 0
    return Effect.zipRight(
      Stream.runForEach(body, (part) =>
        (size += part.length) > cap ? Effect.fail(new TooLarge()) : Effect.sync(() => void parts.push(part))),
      Effect.sync(() => Buffer.concat(parts))
    )
  })

const utf8 = new TextDecoder()

export class ExternalEndpoints extends Effect.Service<ExternalEndpoints>()("@platform-kit/server/ExternalEndpoints", {
  scoped: Effect.gen(function*() {
    const rules = (yield* ExternalEndpointHosts).map(ruleOf)
    // undici's dispatcher made at the first call (as ModelProviders makes the model upstreams'), closed with the service
    const scope = yield* Effect.scope
    const client = yield* Effect.cached(Effect.map(Scope.extend(NodeHttpClient.makeDispatcher, scope), UpstreamHttpClient.make))

    /** Why a node may not call `url`, or `undefined` when it may. */
    const refusal = (url: URL): string | undefined => {
      if (url.protocol !== "http:" && url.protocol !== "https:") return `only http:// and https:// URLs are called, not ${url.protocol}`
      if (url.username !== "" || url.password !== "") return "a URL with credentials in it is not called (give them in headers)"
      if (rules.some((rule) => matches(rule, url))) return undefined
      return rules.length === 0
        ? `the server calls no external endpoint: its PLATFORM_EXTERNAL_ENDPOINT_HOSTS lists none (docs/applications.md "External endpoints")`
        : `host ${url.host} is not one the server's PLATFORM_EXTERNAL_ENDPOINT_HOSTS allows`
    }

    /** `call` made, its answer's status and text; a timeout a `GatewayTimeout`, no answer (or one too large) a `BadGateway`. */
    const call = (call: EndpointCall): Effect.Effect<EndpointAnswer, UpstreamError> => {
      const where = `${call.url.origin}${call.url.pathname}`
      let request = HttpClientRequest.make(call.method as "POST")(call.url, { headers: call.headers })
      if (call.body !== undefined) {
        const type = Object.keys(call.headers).find((name) => name.toLowerCase() === "content-type")
        request = HttpClientRequest.bodyText(request, call.body, type === undefined ? contentTypeOf(call.body) : call.headers[type])
      }
      return Effect.flatMap(client, (http) =>
        UpstreamHttpClient.withDeadline(call.timeoutMs, (deadline) =>
          Effect.scoped(UpstreamHttpClient.tiedToScope(Effect.gen(function*() {
            const response = yield* http.execute(request)
            const bytes = yield* capped(response.stream, maxResponseBytes)
            return { status: response.status, text: utf8.decode(bytes) }
          }))).pipe(
            Effect.mapError((error): UpstreamError =>
              deadline.expired
                ? new GatewayTimeout({ detail: `The external endpoint ${where} did not answer within ${call.timeoutMs} ms` })
                : error._tag === "TooLarge"
                ? new BadGateway({ detail: `The external endpoint ${where} answered more than ${maxResponseBytes} bytes` })
                : error._tag === "RequestError"
                ? new BadGateway({ detail: `The external endpoint ${where} could not be reached` })
                : new BadGateway({ detail: `The external endpoint ${where} broke off its answer` })
            )
          )
        ))
    }

    return { refusal, call } as const
  })
}) {}

/** A body's type when the node's headers give none: JSON when it parses as JSON, else text. */
const contentTypeOf = (body: string) => {
  try {
    JSON.parse(body)
    return "application/json"
  } catch {
    return "text/plain; charset=utf-8"
  }
}
