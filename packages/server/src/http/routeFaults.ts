/**
 * Faults injected on routes by the control plane (docs/control-plane.md): a request that a rule
 * matches (its method, its path under the rule's prefix; never the control plane's own `/admin/`
 * routes) waits the rule's latency, then is answered the rule's status with the contract's
 * `{detail}` body, or served. Which requests of a rule's share are hit is a draw per request.
 *
 * Only the builder's path applies them: while any rule is set, the lean server hands every request
 * to it (fast/server.ts), so with no rule the request path costs one array length.
 */
import type { HttpApp } from "@effect/platform"
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { RouteFault } from "@platform-kit/schema"
import { Effect } from "effect"

/** The first rule matching `method` and the path of `url`, if any. */
export const matchingRouteFault = (rules: ReadonlyArray<RouteFault>, method: string, url: string): RouteFault | undefined => {
  const query = url.indexOf("?")
  const path = query === -1 ? url : url.slice(0, query)
  if (path === "/admin" || path.startsWith("/admin/")) return undefined
  return rules.find((rule) => (rule.method === undefined || rule.method === method) && path.startsWith(rule.path_prefix))
}

/** Waits `millis` of wall time (whatever clock the application runs on), cancelled with the request. */
const wallSleep = (millis: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

const injected = (rule: RouteFault & { readonly status: number }) =>
  HttpServerResponse.unsafeJson(
    { detail: `Injected fault: ${rule.status} for ${rule.path_prefix} (control plane)` },
    { status: rule.status, headers: rule.status === 429 || rule.status === 503 ? { "retry-after": "1" } : {} }
  )

/** The middleware: `faults()` are the rules now. */
export const routeFaults = (faults: () => ReadonlyArray<RouteFault>) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const rules = faults()
    if (rules.length === 0) return app
    const rule = matchingRouteFault(rules, request.method, request.url)
    if (rule === undefined || Math.random() >= rule.share) return app
    const waited = rule.latency_ms === undefined || rule.latency_ms === 0 ? Effect.void : wallSleep(rule.latency_ms)
    return Effect.zipRight(waited, rule.status === undefined ? app : Effect.succeed(injected({ ...rule, status: rule.status })))
  })
