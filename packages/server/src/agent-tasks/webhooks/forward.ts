/**
 * The pieces of a webhook delivery (docs/agent-tasks.md "Webhook triggers"): the signatures GitHub
 * and Slack send, checked in constant time; the URL of a trigger, quoted as agentex quotes it; the
 * request as forwarded (agentex's headers left out) and the call to the agent, over node:http so
 * that the agent's answer passes through byte for byte (no decompression, no re-encoding).
 */
import { Data, Duration, Effect } from "effect"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import * as Https from "node:https"

/** HMAC-SHA256 of `text` with `secret`, hex. */
const hmacHex = (secret: string, text: Buffer) => Crypto.createHmac("sha256", secret).update(text).digest("hex")

/** Whether `given` is `expected`, compared in constant time (a length that differs is refused at once: it tells nothing of the secret). */
export const sameSignature = (expected: string, given: string) => {
  const a = Buffer.from(expected, "utf8")
  const b = Buffer.from(given, "utf8")
  return a.length === b.length && Crypto.timingSafeEqual(a, b)
}

/** GitHub's `x-hub-signature-256` of a raw body: `sha256=` and the hex HMAC-SHA256 of the body with the secret. */
export const githubSignature = (secret: string, body: Buffer) => `sha256=${hmacHex(secret, body)}`

/** Slack's `x-slack-signature` (v0): `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the signing secret. */
export const slackSignature = (secret: string, timestamp: string, body: Buffer) =>
  `v0=${hmacHex(secret, Buffer.concat([Buffer.from(`v0:${timestamp}:`, "utf8"), body]))}`

/** How far a Slack request's timestamp may be from now (s), as Slack's SDKs and agentex check it. */
export const slackWindowSeconds = 300

/** Python's `urllib.parse.quote(text, safe)`: UTF-8 bytes, each but the unreserved and `safe` ones as `%XX`. */
export const pyQuote = (text: string, safe: string) => {
  let out = ""
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9_.\-~]/.test(char) || (byte < 128 && safe.includes(char)) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

/** The path of a trigger's deliveries, as agentex makes it. */
export const webhookPath = (agentName: string, forwardPath: string) =>
  `/agents/forward/name/${pyQuote(agentName, "")}/${pyQuote(forwardPath, "/")}`

/** Headers agentex does not forward (the connection's own; the body's length is the body's). */
const notForwarded = new Set(["content-length", "host", "connection", "transfer-encoding", "expect"])
/** Headers of the agent's answer that are the connection's, not the answer's. */
const notAnswered = new Set(["content-length", "connection", "transfer-encoding", "keep-alive", "content-type"])

/** The headers of a delivery as forwarded: all but `notForwarded`. */
export const forwardedHeaders = (headers: Readonly<Record<string, string | undefined>>) =>
  Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !notForwarded.has(name.toLowerCase()))) as Record<string, string>

/** What a delivery sends the agent: method, the path and query under its ACP URL, headers, the raw body. */
export interface ForwardRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
}

/** The agent's answer: its status, headers and bytes. */
export interface AgentAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string | undefined
  readonly body: Uint8Array
}

/** The agent could not be reached (or did not answer in time). */
export class AgentUnreachable extends Data.TaggedError("AgentUnreachable")<{ readonly message: string }> {}

/** How long the agent may take to answer a delivery. */
const answerTimeout = Duration.seconds(30)

/** `request` sent to `{acpUrl}/{path}`, its answer as it is; a transport failure is `AgentUnreachable`. */
export const callAgent = (acpUrl: string, request: ForwardRequest): Effect.Effect<AgentAnswer, AgentUnreachable> =>
  Effect.async<AgentAnswer, AgentUnreachable>((resume) => {
    let url: URL
    try {
      url = new URL(`${acpUrl.replace(/\/+$/, "")}/${request.path}`)
    } catch {
      resume(Effect.fail(new AgentUnreachable({ message: "The agent's ACP URL is not a URL" })))
      return
    }
    const send = url.protocol === "https:" ? Https.request : Http.request
    const outgoing = send(url, { method: request.method, headers: { ...request.headers, "content-length": String(request.body.length) } }, (answer) => {
      const chunks: Array<Buffer> = []
      answer.on("data", (chunk: Buffer) => chunks.push(chunk))
      answer.on("error", (error) => resume(Effect.fail(new AgentUnreachable({ message: error.message }))))
      answer.on("end", () => {
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !notAnswered.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value
        }
        resume(Effect.succeed({
          status: answer.statusCode ?? 502,
          headers,
          contentType: answer.headers["content-type"],
          body: new Uint8Array(Buffer.concat(chunks))
        }))
      })
    })
    outgoing.setTimeout(Duration.toMillis(answerTimeout), () => outgoing.destroy(new Error("the agent did not answer in time")))
    outgoing.on("error", (error) => resume(Effect.fail(new AgentUnreachable({ message: error.message }))))
    outgoing.end(request.body)
    return Effect.sync(() => outgoing.destroy())
  })

/** Whether an attempt failed the way a later one may not: unreachable, or a 5xx. */
export const failed = (answer: AgentAnswer | AgentUnreachable) => answer instanceof AgentUnreachable || answer.status >= 500
