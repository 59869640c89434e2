/**
 * An OpenAI-compatible upstream of a test's own: a real HTTP server on 127.0.0.1 that answers
 * each request as the test says and records what it received.
 */
import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
// the kit's module itself, not its entry: the process tests that start servers use this file too
import { eventually } from "../../src/testing/eventually.js"

export interface Received {
  readonly path: string
  readonly authorization: string | undefined
  readonly body: any
  /** Whether the kit closed the connection before the answer's end. */
  closedEarly?: boolean
}

/**
 * What the upstream answers a request: `body` as JSON after `delayMs`; or, with `events`, a 200
 * stream of them as `data:` frames (`endsWith`: `[DONE]` as OpenAI ends, a connection cut, or a
 * connection left open and silent).
 */
export interface UpstreamAnswer {
  readonly status: number
  readonly body?: unknown
  readonly delayMs?: number
  readonly events?: ReadonlyArray<unknown>
  readonly endsWith?: "done" | "cut" | "silence"
  /** Between two frames (default 5 ms). */
  readonly intervalMs?: number
}

/**
 * An OpenAI-compatible upstream on 127.0.0.1: answers each request with `answer`, recording what
 * it received. Closed with the scope.
 */
export const upstream = (answer: (received: Received, count: number) => UpstreamAnswer) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; received: Array<Received> }>((resume) => {
      const received: Array<Received> = []
      const server = Http.createServer((req, res) => {
        let text = ""
        req.on("data", (chunk) => (text += chunk))
        req.on("end", () => {
          const got: Received = { path: req.url ?? "", authorization: req.headers.authorization, body: text === "" ? undefined : JSON.parse(text) }
          received.push(got)
          res.on("close", () => {
            if (!res.writableEnded) got.closedEarly = true
          })
          const { body, delayMs, endsWith, events, intervalMs = 5, status } = answer(got, received.length)
          if (events !== undefined) {
            res.writeHead(200, { "content-type": "text/event-stream" })
            events.forEach((event, i) => setTimeout(() => res.write(`data: ${JSON.stringify(event)}\n\n`), i * intervalMs))
            setTimeout(() => {
              if (endsWith === "cut") res.destroy()
              else if (endsWith !== "silence") res.end("data: [DONE]\n\n")
            }, events.length * intervalMs + 5)
            return
          }
          setTimeout(() => {
            res.writeHead(status, { "content-type": "application/json" })
            res.end(JSON.stringify(body))
          }, delayMs ?? 0)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        Object.assign(received, { server })
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, received }))
      })
    }),
    ({ received }) =>
      Effect.async<void>((resume) => {
        const server = (received as any).server as Http.Server
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

export const chatAnswer = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "upstream-model",
  choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 }
})


/**
 * What a run of `items` chat completions sent, checked: every item's last message sent, none more
 * than twice, the repeats (calls in flight at a crash, run again) at most `maxRepeats`. Answers how
 * many were repeated.
 */
export const assertSentAtMostTwice = (received: ReadonlyArray<Received>, items: number, maxRepeats: number) => {
  const sent = new Map<string, number>()
  for (const request of received) {
    const content = request.body.messages.at(-1).content as string
    sent.set(content, (sent.get(content) ?? 0) + 1)
  }
  assert.strictEqual(sent.size, items)
  const repeated = [...sent.values()].filter((count) => count > 1)
  assert.isTrue(repeated.every((count) => count === 2), JSON.stringify(repeated))
  assert.isAtMost(repeated.length, maxRepeats)
  assert.strictEqual(received.length, items + repeated.length)
  return repeated.length
}

/** Waits, up to `millis` of wall time, until the upstream saw the connection of its first request closed early; whether it did. */
export const closedEarly = (received: ReadonlyArray<Received>, millis = 2_000) =>
  Effect.map(
    eventually(Effect.sync(() => (received[0]?.closedEarly === true ? Option.some(true) : Option.none())), millis),
    Option.isSome
  )
