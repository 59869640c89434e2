/**
 * Agents and tasks (docs/agent-tasks.md): the account's agents a page at a time (`GET /agents`),
 * a form registering one (what its ACP server does when it starts), an agent's tasks
 * (`GET /tasks?agent_id=`) and a new task (`task/create` through its RPC: it does not reach the
 * agent), and a task: its messages and its **live stream** (`GET /tasks/{id}/stream` through the
 * kit's client, `makeStreams(…).taskEvents`): messages appear, grow (an agent's `delta`s) and the
 * task's status moves as the frames arrive; a dropped stream reconnects with the last frame's id.
 * A message sent from the form (`POST /messages`) comes back through the same stream.
 */
import { FetchHttpClient } from "@effect/platform"
import { makeStreams, type TaskFrame } from "@platform-kit/client"
import type { Agent, TaskMessage, TaskMessageContent, TaskStatus } from "@platform-kit/schema"
import { Cause, Effect, Fiber, Stream } from "effect"
import { useEffect, useState } from "preact/hooks"
import { Link, navigate } from "../router.js"
import type { Session } from "../session.js"
import { Empty, ErrorBox, Show, useLoad, when } from "../ui.js"

const pageSize = 20
/** The newest messages a task's page reads at first (the stream adds the ones that follow). */
const messageLimit = 100
const finalStatuses: ReadonlyArray<TaskStatus> = ["CANCELED", "COMPLETED", "FAILED", "TERMINATED", "TIMED_OUT", "DELETED"]

/** Previous and Next of a list answered as a bare array (agentex's `page_number`): a full page may have a next. */
const PageButtons = (
  { page, count, onPage }: { readonly page: number; readonly count: number; readonly onPage: (page: number) => void }
) =>
  page === 1 && count < pageSize ? null : (
    <nav class="row" aria-label="Pages of the list">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page}</span>
      <button type="button" disabled={count < pageSize} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  )

const statusClass = (status: string) => `badge status-${status.toLowerCase().replace(/_/g, "-")}`

export const AgentsPage = ({ session }: { readonly session: Session }) => {
  const [page, setPage] = useState(1)
  const [reload, setReload] = useState(0)
  const agents = useLoad(() => session.client.agents.list({ urlParams: { limit: pageSize, page_number: page } }), [page, reload])
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <Show loaded={agents} what="agents">
        {(items) =>
          items.length === 0 && page === 1
            ? (
              <Empty>
                No agents in this account yet. An agent's ACP server registers itself when it starts
                (<code>POST /agents/register</code>, docs/agent-tasks.md), or register one below.
              </Empty>
            )
            : (
              <>
                <table>
                  <caption class="sr-only">Agents of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Status</th>
                      <th scope="col">Registered</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((agent) => (
                      <tr key={agent.id}>
                        <td><Link to={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link></td>
                        <td>{agent.acp_type}</td>
                        <td><span class={statusClass(agent.status)}>{agent.status}</span></td>
                        <td>{when(agent.registered_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <PageButtons page={page} count={items.length} onPage={setPage} />
              </>
            )}
      </Show>
      <RegisterForm session={session} onRegistered={() => setReload(reload + 1)} />
    </section>
  )
}

const RegisterForm = ({ session, onRegistered }: { readonly session: Session; readonly onRegistered: (agent: Agent) => void }) => {
  const [name, setName] = useState("")
  const [url, setUrl] = useState("http://127.0.0.1:8090")
  const [kind, setKind] = useState<"sync" | "async">("sync")
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <form
      class="card stack"
      aria-labelledby="register-title"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        setFailure(undefined)
        session.client.agents.register({ payload: { name: name.trim(), description: "", acp_url: url.trim(), acp_type: kind } })
          .then((registered) => {
            // the answer's `agent_api_key` is the agent's to keep: not shown, not kept here
            setName("")
            onRegistered(registered)
          }, setFailure)
          .finally(() => setBusy(false))
      }}
    >
      <h2 id="register-title">Register an agent</h2>
      <p class="muted">
        Its ACP server answers at the URL; making tasks and messages here does not call it, sending it a message does.
      </p>
      <label for="agent-name">Name (lower-case letters, digits, dashes)</label>
      <input id="agent-name" required pattern="[a-z0-9\-]+" value={name} onInput={(event) => setName(event.currentTarget.value)} />
      <label for="agent-url">ACP server URL</label>
      <input id="agent-url" required value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
      <label for="agent-kind">Kind</label>
      <select id="agent-kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as "sync" | "async")}>
        <option value="sync">sync</option>
        <option value="async">async</option>
      </select>
      <div class="row">
        <button type="submit" class="primary" disabled={busy || name.trim() === ""}>{busy ? "Registering…" : "Register"}</button>
      </div>
      {failure !== undefined && <ErrorBox error={failure} />}
    </form>
  )
}

export const AgentPage = ({ session, agentId }: { readonly session: Session; readonly agentId: string }) => {
  const [page, setPage] = useState(1)
  const agent = useLoad(() => session.client.agents.get({ path: { agent_id: agentId } }), [agentId])
  const tasks = useLoad(
    () => session.client.tasks.list({ urlParams: { agent_id: agentId, limit: pageSize, page_number: page } }),
    [agentId, page]
  )
  const [taskName, setTaskName] = useState("")
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <section aria-labelledby="agent-title">
      <p><Link to="/agents">← Agents</Link></p>
      <Show loaded={agent} what="the agent">
        {(agent) => (
          <>
            <h1 id="agent-title">{agent.name}</h1>
            <dl class="facts">
              <dt>Id</dt>
              <dd><code>{agent.id}</code></dd>
              <dt>Kind</dt>
              <dd>{agent.acp_type}</dd>
              <dt>Status</dt>
              <dd><span class={statusClass(agent.status)}>{agent.status}</span>{agent.status_reason !== null && ` ${agent.status_reason}`}</dd>
              <dt>Description</dt>
              <dd>{agent.description === "" ? "—" : agent.description}</dd>
              <dt>Registered</dt>
              <dd>{when(agent.registered_at)}</dd>
            </dl>
          </>
        )}
      </Show>
      <form
        class="row"
        aria-label="New task"
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          setFailure(undefined)
          const params = taskName.trim() === "" ? {} : { name: taskName.trim() }
          session.client.agents.rpc({ path: { agent_id: agentId }, payload: { jsonrpc: "2.0", id: 1, method: "task/create", params } })
            .then((answer) => {
              const result = answer.result as { readonly id?: unknown } | null
              if (answer.error !== null || result === null || typeof result.id !== "string") {
                setFailure(new Error(answer.error?.message ?? "task/create answered no task"))
                setBusy(false)
              } else navigate(`/agents/tasks/${encodeURIComponent(result.id)}`)
            }, (error: unknown) => {
              setFailure(error)
              setBusy(false)
            })
        }}
      >
        <label for="task-name">Task name (optional)</label>
        <input id="task-name" value={taskName} onInput={(event) => setTaskName(event.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy}>{busy ? "Creating…" : "New task"}</button>
      </form>
      {failure !== undefined && <ErrorBox error={failure} />}
      <h2>Tasks</h2>
      <Show loaded={tasks} what="tasks">
        {(items) =>
          items.length === 0 && page === 1
            ? <Empty>No tasks of this agent yet: make one with New task, or through its RPC (<code>task/create</code>).</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Tasks of the agent, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Task</th>
                      <th scope="col">Status</th>
                      <th scope="col">Created</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((task) => (
                      <tr key={task.id}>
                        <td><Link to={`/agents/tasks/${encodeURIComponent(task.id)}`}>{task.name ?? task.id}</Link></td>
                        <td><span class={statusClass(task.status)}>{task.status}</span></td>
                        <td>{when(task.created_at)}</td>
                        <td>{when(task.updated_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <PageButtons page={page} count={items.length} onPage={setPage} />
              </>
            )}
      </Show>
    </section>
  )
}

/** A message as shown: its content so far (a streamed one grows with its deltas). */
interface Shown {
  readonly id: string
  readonly author: string
  readonly text: string
  readonly streaming: boolean
  readonly created_at: string
}

/** A content as text: text itself, a tool call and its answer, reasoning, data as JSON. */
const contentText = (content: TaskMessageContent): string => {
  switch (content.type) {
    case "text":
      return content.content
    case "data":
      return JSON.stringify(content.data)
    case "tool_request":
      return `${content.name}(${JSON.stringify(content.arguments)})`
    case "tool_response":
      return `${content.name} → ${typeof content.content === "string" ? content.content : JSON.stringify(content.content)}`
    case "reasoning":
      return content.summary.join("\n")
  }
}

const shown = (message: TaskMessage, text = contentText(message.content)): Shown => ({
  id: message.id,
  author: message.content.author,
  text,
  streaming: message.streaming_status === "IN_PROGRESS",
  created_at: message.created_at
})

type Live = "connecting" | "live" | "ended" | "reconnecting"

/**
 * The task's messages and status, live: the stream opened first, and once it says `connected` the
 * newest messages read (so nothing written in between is missed), merged with what the frames
 * bring. A stream that ends while the task is not final (the server restarting) is opened again
 * after 1 s, then twice as long up to 10 s, from the last frame's id.
 */
const useTaskStream = (session: Session, taskId: string) => {
  const [messages, setMessages] = useState<ReadonlyMap<string, Shown>>(new Map())
  const [status, setStatus] = useState<{ readonly status: TaskStatus; readonly reason: string | null } | undefined>(undefined)
  const [live, setLive] = useState<Live>("connecting")
  const [name, setName] = useState<string | null>(null)
  const [failure, setFailure] = useState<unknown>(undefined)
  useEffect(() => {
    let stopped = false
    let lastId: number | undefined
    let final = false
    let delay = 1_000
    let fiber: Fiber.RuntimeFiber<void, unknown> | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const put = (message: Shown) => setMessages((now) => new Map(now).set(message.id, message))
    const onFrame = (frame: TaskFrame) => {
      if (frame.id !== undefined) lastId = frame.id
      const event = frame.event
      switch (event.type) {
        case "connected":
          setLive("live")
          delay = 1_000
          session.client.messages.list({ urlParams: { task_id: taskId, limit: messageLimit } }).then((listed) =>
            setMessages((now) => {
              const merged = new Map(listed.map((message) => [message.id, shown(message)]))
              for (const [id, message] of now) merged.set(id, message)
              return merged
            }), setFailure)
          return
        case "task_updated":
          if (event.task !== undefined && event.task !== null) {
            setStatus({ status: event.task.status, reason: event.task.status_reason })
            final = finalStatuses.includes(event.task.status)
          }
          return
        case "error":
          setFailure(new Error(event.message))
          return
        case "start":
        case "full":
          if (event.parent_task_message !== undefined && event.parent_task_message !== null) {
            const message = event.parent_task_message
            put({ ...shown(message, contentText(event.content)), streaming: event.type === "start" })
          }
          return
        case "delta": {
          const parent = event.parent_task_message
          const delta = event.delta
          if (parent === undefined || parent === null || delta === undefined || delta === null) return
          const piece = delta.type === "text" ? delta.text_delta : delta.type === "data" ? delta.data_delta : null
          if (piece === undefined || piece === null) return
          setMessages((now) => {
            const before = now.get(parent.id) ?? { ...shown(parent, ""), streaming: true }
            return new Map(now).set(parent.id, { ...before, text: before.text + piece })
          })
          return
        }
        case "done": {
          const parent = event.parent_task_message
          if (parent === undefined || parent === null) return
          setMessages((now) => {
            const before = now.get(parent.id)
            return before === undefined ? now : new Map(now).set(parent.id, { ...before, streaming: false })
          })
          return
        }
      }
    }
    const open = () => {
      timer = undefined
      const program = Effect.gen(function*() {
        const streams = yield* makeStreams({ baseUrl: location.origin, apiKey: session.key, accountId: session.accountId })
        yield* Stream.runForEach(streams.taskEvents(taskId, lastId), (frame) => Effect.sync(() => onFrame(frame)))
      }).pipe(Effect.provide(FetchHttpClient.layer))
      fiber = Effect.runFork(program)
      fiber.addObserver((exit) => {
        if (stopped) return
        if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) {
          const error = Cause.squash(exit.cause)
          // a task that is not there (404) is no stream to wait for
          if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "NotFound") {
            setFailure(error)
            setLive("ended")
            return
          }
        }
        if (final) return setLive("ended")
        setLive("reconnecting")
        timer = setTimeout(open, delay)
        delay = Math.min(delay * 2, 10_000)
      })
    }
    // the task's status as it is now (the stream reports only its changes)
    session.client.tasks.get({ path: { task_id: taskId }, urlParams: {} }).then((task) => {
      if (stopped) return
      setName(task.name)
      if (finalStatuses.includes(task.status)) final = true
      setStatus((now) => now ?? { status: task.status, reason: task.status_reason })
    }, setFailure)
    open()
    return () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      if (fiber !== undefined) Effect.runFork(Fiber.interrupt(fiber))
    }
  }, [taskId])
  return { messages, status, live, failure, name }
}

const liveText: Record<Live, string> = {
  connecting: "Connecting to the task's stream…",
  live: "Live: new messages appear as they arrive",
  ended: "The stream has ended (the task is final)",
  reconnecting: "The stream broke off: reconnecting…"
}

export const TaskPage = ({ session, taskId }: { readonly session: Session; readonly taskId: string }) => {
  const { messages, status, live, failure, name } = useTaskStream(session, taskId)
  const [text, setText] = useState("")
  const [busy, setBusy] = useState(false)
  const [sendFailure, setSendFailure] = useState<unknown>(undefined)
  const ordered = [...messages.values()].sort((a, b) => a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)
  const send = () => {
    setBusy(true)
    setSendFailure(undefined)
    session.client.messages.create({ payload: { task_id: taskId, content: { type: "text", author: "user", content: text } } })
      .then(() => setText(""), setSendFailure)
      .finally(() => setBusy(false))
  }
  return (
    <section aria-labelledby="task-title">
      <p><Link to="/agents">← Agents</Link></p>
      <h1 id="task-title">Task {name ?? <code>{taskId}</code>}</h1>
      {name !== null && <p class="muted">Id <code>{taskId}</code></p>}
      <div class="row">
        <span>Status</span>
        {status === undefined
          ? <span class="muted">…</span>
          : <span class={statusClass(status.status)} data-testid="task-status">{status.status}</span>}
        {status?.reason !== null && status?.reason !== undefined && <span class="muted">{status.reason}</span>}
        <span class={`live live-${live}`} role="status">{liveText[live]}</span>
      </div>
      {failure !== undefined && <ErrorBox error={failure} />}
      <ol class="chat" aria-label="Messages of the task" aria-live="polite">
        {ordered.length === 0 && <li class="muted">No messages yet.</li>}
        {ordered.map((message) => (
          <li key={message.id} class={`message ${message.author === "user" ? "user" : "assistant"}${message.streaming ? " streaming" : ""}`}>
            <span class="who">{message.author === "user" ? "User" : "Agent"} · {when(message.created_at)}</span>
            <p>{message.text}{message.streaming && <span class="cursor" aria-hidden="true">▍</span>}</p>
          </li>
        ))}
      </ol>
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault()
          if (!busy && text.trim() !== "") send()
        }}
      >
        <label for="task-message">Message to the task</label>
        <textarea id="task-message" rows={2} value={text} onInput={(event) => setText(event.currentTarget.value)} />
        <p class="muted">
          Stored in the task as the user's (<code>POST /messages</code>); it comes back through the stream. It does not call the agent.
        </p>
        <div class="row">
          <button type="submit" class="primary" disabled={busy || text.trim() === ""}>Add message</button>
        </div>
        {sendFailure !== undefined && <ErrorBox error={sendFailure} />}
      </form>
    </section>
  )
}
