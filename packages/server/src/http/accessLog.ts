/**
 * The access log of the standalone server (docs/operations.md): one line per request once its
 * response has gone (or its client went away), through the application's logger (format and level
 * as configured), with the method, the route, the status, the duration, the request id and the
 * caller (identity, and the account when the request names one or the caller has only one). Never
 * a key, a header's value, a query string or a body.
 */
import { Effect, Runtime } from "effect"
import type * as Http from "node:http"

interface RequestFacts {
  route?: string
  requestId?: string
  identity?: string
  account?: string | undefined
}

/** What the access log learns of a request while it is served, by its Node request. */
const facts = new WeakMap<object, RequestFacts>()

const factsOf = (source: object) => {
  let found = facts.get(source)
  if (found === undefined) {
    found = {}
    facts.set(source, found)
  }
  return found
}

/** The route template a request matched (`/v4/model-groups/:model_group_id`), and its request id. */
export const noteRoute = (source: object, route: string, requestId: string) => {
  const noted = factsOf(source)
  noted.route = route
  noted.requestId = requestId
}

/** The request id of a request the lean engine left to the builder's path. */
export const noteRequestId = (source: unknown, requestId: string) => {
  if (typeof source === "object" && source !== null) factsOf(source).requestId = requestId
}

/** The caller the request's key resolved to. */
export const noteCaller = (
  source: unknown,
  caller: { readonly identityId: string; readonly accountIds: ReadonlyArray<string>; readonly selectedAccountId?: string | undefined }
) => {
  if (typeof source !== "object" || source === null) return
  const noted = factsOf(source)
  noted.identity = caller.identityId
  noted.account = caller.selectedAccountId ?? (caller.accountIds.length === 1 ? caller.accountIds[0] : undefined)
}

type Listener = (req: Http.IncomingMessage, res: Http.ServerResponse) => void

/** `listener`, with a line in the log for each request it serves. */
export const withAccessLog = (runtime: Runtime.Runtime<never>, listener: Listener): Listener => {
  const log = Runtime.runSync(runtime)
  return (req, res) => {
    const started = performance.now()
    res.once("close", () => {
      const noted = facts.get(req)
      const url = req.url ?? ""
      const query = url.indexOf("?")
      log(Effect.logInfo("request").pipe(Effect.annotateLogs({
        method: req.method,
        route: noted?.route ?? (query === -1 ? url : url.slice(0, query)),
        status: res.writableFinished ? res.statusCode : 499,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        request_id: noted?.requestId ?? null,
        identity: noted?.identity ?? null,
        account: noted?.account ?? null
      })))
    })
    listener(req, res)
  }
}
