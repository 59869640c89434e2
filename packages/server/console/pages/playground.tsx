/**
 * The playground: a chat with the built-in model (nothing to set up) or any `READY` deployment of
 * the account, streamed (`POST /v4/chat-completions` with `stream: true`): the reply grows as its
 * pieces arrive; Stop closes the stream.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { type ChatMessage, inAccount, type Session, streamChat } from "../session.js"
import { ErrorBox, useLoad } from "../ui.js"

const builtin = "builtin"

export const PlaygroundPage = ({ session }: { readonly session: Session }) => {
  const deployments = useLoad(
    () => session.client.models.listDeployments({ urlParams: { limit: 100, ...inAccount(session) } }),
    []
  )
  const ready = deployments.state === "done" ? deployments.value.items.filter((deployment) => deployment.status === "READY") : []
  const [model, setModel] = useState(() => new URLSearchParams(location.search).get("model") ?? builtin)
  const [messages, setMessages] = useState<ReadonlyArray<ChatMessage>>([])
  const [reply, setReply] = useState<string | undefined>(undefined)
  const [prompt, setPrompt] = useState("")
  const [failure, setFailure] = useState<unknown>(undefined)
  const stop = useRef<(() => void) | undefined>(undefined)
  const streaming = reply !== undefined

  // leaving the page stops a stream still running
  useEffect(() => () => stop.current?.(), [])

  const send = () => {
    const asked: ReadonlyArray<ChatMessage> = [...messages, { role: "user", content: prompt }]
    setMessages(asked)
    setPrompt("")
    setFailure(undefined)
    setReply("")
    let text = ""
    stop.current = streamChat(session, { model, messages: asked }, (piece) => {
      text += piece
      setReply(text)
    }, (error) => {
      stop.current = undefined
      if (error !== undefined) setFailure(error)
      setMessages((now) => text === "" ? now : [...now, { role: "assistant", content: text }])
      setReply(undefined)
    })
  }

  return (
    <section aria-labelledby="playground-title">
      <h1 id="playground-title">Playground</h1>
      <div class="row">
        <label for="model">Model</label>
        <select id="model" value={model} disabled={streaming} onChange={(event) => setModel(event.currentTarget.value)}>
          <option value={builtin}>Built-in model</option>
          {ready.map((deployment) => (
            <option key={deployment.id} value={deployment.id}>Deployment {deployment.name} ({deployment.id})</option>
          ))}
        </select>
        {deployments.state === "loading" && <span class="muted" role="status">Loading deployments…</span>}
        <button type="button" disabled={streaming || messages.length === 0} onClick={() => setMessages([])}>Clear chat</button>
      </div>
      {deployments.state === "failed" && <ErrorBox error={deployments.error} />}
      <ol class="chat" aria-label="Conversation" aria-live="polite">
        {messages.length === 0 && !streaming && <li class="muted">No messages yet: write one below.</li>}
        {messages.map((message, index) => (
          <li key={index} class={`message ${message.role}`}>
            <span class="who">{message.role === "user" ? "You" : "Model"}</span>
            <p>{message.content}</p>
          </li>
        ))}
        {streaming && (
          <li class="message assistant streaming">
            <span class="who">Model</span>
            <p data-testid="reply">{reply}<span class="cursor" aria-hidden="true">▍</span></p>
          </li>
        )}
      </ol>
      {failure !== undefined && <ErrorBox error={failure} />}
      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault()
          if (!streaming && prompt.trim() !== "") send()
        }}
      >
        <label for="prompt">Message</label>
        <textarea
          id="prompt"
          rows={3}
          value={prompt}
          onInput={(event) => setPrompt(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
              event.preventDefault()
              if (!streaming && prompt.trim() !== "") send()
            }
          }}
        />
        <div class="row">
          <button type="submit" class="primary" disabled={streaming || prompt.trim() === ""}>Send</button>
          <button type="button" disabled={!streaming} onClick={() => stop.current?.()}>Stop</button>
          <span class="muted">Ctrl+Enter sends</span>
        </div>
      </form>
    </section>
  )
}
