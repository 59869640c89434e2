/**
 * LangGraph's own checkpointer validation suite (`@langchain/langgraph-checkpoint-validation`)
 * over the kit's checkpoint store: a saver that speaks `/checkpoints/*` (support/
 * httpCheckpointSaver.ts) against a test server. Each checkpointer the suite makes has an account
 * of its own, whose tasks (made by name through a sync agent's `task/create`) are the threads.
 *
 * The suite is written for vitest's globals (`describe`, `it`, `expect`, … without imports) and
 * registers its tests when `specTest` is called: this file sets those globals for the time it is
 * collected and run (its worker's other files do not use them), and runs the server through a
 * `ManagedRuntime` of its own, as the suite's hooks are plain promises.
 */
import { specTest } from "@langchain/langgraph-checkpoint-validation"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as Vitest from "vitest"
import { Accounts } from "../src/auth/Accounts.js"
import { request, TestServerLive } from "../src/testing.js"
import { HttpCheckpointSaver } from "./support/httpCheckpointSaver.js"

const globals = {
  describe: Vitest.describe,
  it: Vitest.it,
  test: Vitest.test,
  expect: Vitest.expect,
  beforeAll: Vitest.beforeAll,
  afterAll: Vitest.afterAll,
  beforeEach: Vitest.beforeEach,
  afterEach: Vitest.afterEach
}
const previous = Object.fromEntries(Object.keys(globals).map((name) => [name, (globalThis as any)[name]]))
Object.assign(globalThis, globals)
Vitest.afterAll(() => {
  Object.assign(globalThis, previous)
})

let runtime: ManagedRuntime.ManagedRuntime<any, unknown> | undefined

const run = <A, E>(effect: Effect.Effect<A, E, any>) => runtime!.runPromise(effect as Effect.Effect<A, E, never>)

/** A checkpointer of a new account, with a sync agent to make its threads' tasks. */
const newSaver = async () => {
  // (a user and its key, without `provision`'s typed client: the suite makes some thirty checkpointers)
  const key = Redacted.value((await run(Effect.flatMap(Accounts, (accounts) => accounts.provisionUser()))).key)
  const call = (method: "GET" | "POST", path: string, body?: unknown) => run(request(method, path, { key, body }))
  const agent = await call("POST", "/agents/register", {
    name: "checkpointer-agent",
    description: "LangGraph validation",
    acp_url: "http://127.0.0.1:9",
    acp_type: "sync"
  })
  const post = async (path: string, body: unknown) => {
    const answer = await call("POST", `/checkpoints${path}`, body)
    if (answer.status === 204) return undefined
    if (answer.status !== 200) throw new Error(`POST /checkpoints${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return answer.body
  }
  return new HttpCheckpointSaver(post, {
    make: async (threadId) => {
      const made = await call("POST", `/agents/${agent.body.id}/rpc`, { method: "task/create", params: { name: threadId } })
      return made.body.result.id
    },
    find: async (threadId) => {
      const found = await call("GET", `/tasks/name/${encodeURIComponent(threadId)}`)
      return found.status === 200 ? found.body.id : undefined
    },
    all: async () => {
      const tasks = await call("GET", "/tasks?limit=1000")
      return tasks.body.map((task: { name: string }) => task.name)
    }
  })
}

specTest({
  checkpointerName: "platform-kit HttpCheckpointSaver",
  beforeAllTimeout: 30_000,
  beforeAll: async () => {
    runtime = ManagedRuntime.make(TestServerLive)
    await runtime.runtime()
  },
  afterAll: async () => {
    await runtime?.dispose()
  },
  createCheckpointer: newSaver
})
