/**
 * The access log of the standalone server (docs/operations.md): one line per request once its
 * response has gone (or its client went away), with the method, the route, the status, the
 * duration, the request id and the caller (identity, and the account the request selected or the
 * caller's only account). Never a key, a header's value, a query string or a body.
 *
 * It runs on every request, so it does not go through Effect's logger (a fiber, annotations and
 * the logger's formatting cost about 25 µs a line, a fifth of a GET's CPU): the line is formatted
 * here in the configured format, with the fields Effect's loggers write (`message`, `logLevel`,
 * `timestamp`, `annotations`), and written to stdout as they are. Below the configured level
 * (`warning` and up) it is not installed at all.
 */
import type * as Http from "node:http"

interface RequestFacts {
  route?: string
  requestId?: string
  identity?: string
  account?: string | undefined
}

/** What the access log learns of a request while it is served, by its Node request. */
const facts = new WeakMap<object, RequestFacts>()

/** Whether a server with the access log on runs in this process (the notes are skipped otherwise). */
let noting = false

const factsOf = (source: object) => {
  let found = facts.get(source)
  if (found === undefined) {
    found = {}
    facts.set(source, found)
  }
  return found
}

/** An id as logged: at most 200 characters. */
const bounded = (text: string) => (text.length > 200 ? text.slice(0, 200) : text)

/** The route template a request matched (`/v4/model-groups/:model_group_id`). */
export const noteRoute = (source: object, route: string) => {
  if (noting) factsOf(source).route = route
}

/** The request id the response carries. */
export const noteRequestId = (source: unknown, requestId: string) => {
  if (noting && typeof source === "object" && source !== null) factsOf(source).requestId = bounded(requestId)
}

/** The caller the request's key resolved to; the selected account only when the caller is a member. */
export const noteCaller = (
  source: unknown,
  caller: { readonly identityId: string; readonly accountIds: ReadonlyArray<string>; readonly selectedAccountId?: string | undefined }
) => {
  if (!noting || typeof source !== "object" || source === null) return
  const noted = factsOf(source)
  noted.identity = caller.identityId
  const selected = caller.selectedAccountId
  noted.account = selected !== undefined
    ? (caller.accountIds.includes(selected) ? selected : undefined)
    : caller.accountIds.length === 1
    ? caller.accountIds[0]
    : undefined
}

export type AccessLogFormat = "json" | "logfmt" | "pretty"

interface Line {
  readonly method: string
  readonly route: string | null
  readonly status: number
  readonly duration_ms: number
  readonly request_id: string | null
  readonly identity: string | null
  readonly account: string | null
}

const logfmtValue = (value: string | number | null) =>
  value === null ? "null" : typeof value === "number" ? String(value) : /^[\w\-.:/]+$/.test(value) ? value : JSON.stringify(value)

/** A line in `format`, as Effect's loggers of that name lay one out. */
export const formatLine = (format: AccessLogFormat, date: Date, line: Line): string => {
  switch (format) {
    case "json":
      return JSON.stringify({ message: "request", logLevel: "INFO", timestamp: date.toISOString(), annotations: line })
    case "logfmt":
      return `timestamp=${date.toISOString()} level=INFO message=request ${
        Object.entries(line).map(([key, value]) => `${key}=${logfmtValue(value)}`).join(" ")
      }`
    case "pretty":
      return `[${date.toISOString().slice(11, 23)}] INFO request ${line.method} ${line.route ?? "-"} ${line.status} ${line.duration_ms}ms ${
        line.request_id ?? "-"
      } ${line.identity ?? "-"} ${line.account ?? "-"}`
  }
}

type Listener = (req: Http.IncomingMessage, res: Http.ServerResponse) => void

/**
 * Lines wait for the end of the event loop's turn and go out in one write (one system call for
 * all the requests a turn finished, not one each); `flush` writes what waits at once (shutdown).
 */
let pending = ""
let scheduled = false

export const flushAccessLog = () => {
  scheduled = false
  if (pending.length === 0) return
  const out = pending
  pending = ""
  process.stdout.write(out)
}

const enqueue = (line: string) => {
  pending += line
  if (!scheduled) {
    scheduled = true
    setImmediate(flushAccessLog)
  }
}

/** `listener`, with a line on stdout for each request it serves. */
export const withAccessLog = (format: AccessLogFormat, listener: Listener): Listener => {
  noting = true
  return (req, res) => {
    const started = performance.now()
    res.once("close", () => {
      const noted = facts.get(req)
      enqueue(
        formatLine(format, new Date(), {
          method: req.method ?? "",
          route: noted?.route ?? null,
          status: res.writableFinished ? res.statusCode : 499,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          request_id: noted?.requestId ?? null,
          identity: noted?.identity ?? null,
          account: noted?.account ?? null
        }) + "\n"
      )
    })
    listener(req, res)
  }
}
