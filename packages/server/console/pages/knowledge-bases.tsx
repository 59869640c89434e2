/**
 * Knowledge bases (docs/knowledge-bases.md): the account's bases a page at a time
 * (`GET /v4/knowledge-bases`) and a create form (the built-in embeddings: nothing to set up);
 * a base's page uploads files (`POST …/upload_files`, a multipart form), shows its uploads and
 * their ingestion as it moves (`GET …/uploads`, and the newest upload with its artifacts, polled
 * while `Running`, never while the tab is hidden), and queries it (`POST …/query`): the chunks
 * best first with their scores and the artifact each comes from.
 */
import type { Chunk, KnowledgeBaseUpload } from "@platform-kit/schema"
import { useState } from "preact/hooks"
import { Link, navigate } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Pager, Show, useLoad, usePolled, when } from "../ui.js"

const pageSize = 20

export const KnowledgeBasesPage = ({ session }: { readonly session: Session }) => {
  const [page, setPage] = useState(1)
  const bases = useLoad(
    () => session.client.knowledgeBases.list({ urlParams: { page, limit: pageSize, ...inAccount(session) } }),
    [page]
  )
  return (
    <section aria-labelledby="kbs-title">
      <h1 id="kbs-title">Knowledge bases</h1>
      <CreateForm session={session} />
      <Show loaded={bases} what="knowledge bases">
        {(result) =>
          result.items.length === 0
            ? <Empty>No knowledge bases in this account yet: create one above, then upload files to it.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Knowledge bases of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Embeddings</th>
                      <th scope="col">Artifacts completed</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((base) => (
                      <tr key={base.knowledge_base_id}>
                        <td>
                          <Link to={`/knowledge-bases/${encodeURIComponent(base.knowledge_base_id)}`}>{base.knowledge_base_name}</Link>
                        </td>
                        <td>{embeddings(base.embedding_config)}</td>
                        <td>{base.artifacts_status.artifacts_completed}</td>
                        <td>{when(base.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <Pager page={page} pageSize={pageSize} total={result.total_item_count} onPage={setPage} />
              </>
            )}
      </Show>
    </section>
  )
}

/** What a base embeds with, in a few words. */
const embeddings = (config: { readonly type: string; readonly [key: string]: unknown }) =>
  config.type === "models_api" ? `Deployment ${String(config["model_deployment_id"] ?? "")}` : "Built-in"

/** A new base on the built-in embeddings (`embedding_config: {type: "base"}`), opened once made. */
const CreateForm = ({ session }: { readonly session: Session }) => {
  const [name, setName] = useState("")
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <form
      class="card stack"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        setFailure(undefined)
        session.client.knowledgeBases.create({
          payload: { knowledge_base_name: name.trim(), embedding_config: { type: "base" }, ...inAccount(session) }
        }).then(
          (base) => navigate(`/knowledge-bases/${encodeURIComponent(base.knowledge_base_id)}`),
          (error: unknown) => {
            setFailure(error)
            setBusy(false)
          }
        )
      }}
    >
      <h2>New knowledge base</h2>
      <div class="row">
        <label for="kb-name">Name</label>
        <input id="kb-name" value={name} required onInput={(event) => setName(event.currentTarget.value)} />
        <button type="submit" class="primary" disabled={busy || name.trim() === ""}>{busy ? "Creating…" : "Create"}</button>
      </div>
      <p class="muted">Embedded with the built-in embeddings (no model to set up).</p>
      {failure !== undefined && <ErrorBox error={failure} />}
    </form>
  )
}

export const KnowledgeBasePage = ({ session, baseId }: { readonly session: Session; readonly baseId: string }) => {
  const path = { knowledge_base_id: baseId }
  // a new upload loads the uploads again (and watches it)
  const [uploaded, setUploaded] = useState<string | undefined>(undefined)
  const base = useLoad(() => session.client.knowledgeBases.get({ path, urlParams: {} }), [baseId])
  return (
    <section aria-labelledby="kb-title">
      <p><Link to="/knowledge-bases">← Knowledge bases</Link></p>
      <Show loaded={base} what="the knowledge base">
        {(base) => (
          <>
            <h1 id="kb-title">{base.knowledge_base_name}</h1>
            <dl class="facts">
              <dt>Id</dt>
              <dd><code>{base.knowledge_base_id}</code></dd>
              <dt>Embeddings</dt>
              <dd>{embeddings(base.embedding_config)}</dd>
              <dt>Created</dt>
              <dd>{when(base.created_at)}</dd>
            </dl>
          </>
        )}
      </Show>
      <UploadForm session={session} baseId={baseId} onUploaded={setUploaded} />
      {uploaded !== undefined && <UploadProgress key={uploaded} session={session} baseId={baseId} uploadId={uploaded} />}
      <QueryForm session={session} baseId={baseId} />
      <Uploads key={uploaded ?? ""} session={session} baseId={baseId} />
    </section>
  )
}

/** Files posted as the SDK's form (`files`, and the chunking as JSON text), within the server's body limit. */
const UploadForm = (
  { session, baseId, onUploaded }: { readonly session: Session; readonly baseId: string; readonly onUploaded: (uploadId: string) => void }
) => {
  const [files, setFiles] = useState<ReadonlyArray<File>>([])
  const [chunkSize, setChunkSize] = useState(1000)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <form
      class="card stack"
      onSubmit={(event) => {
        event.preventDefault()
        const form = new FormData()
        for (const file of files) form.append("files", file, file.name)
        form.append(
          "chunking_strategy_config",
          JSON.stringify({ strategy: "character", chunk_size: chunkSize, chunk_overlap: Math.min(200, Math.floor(chunkSize / 5)) })
        )
        form.append("data_source_config", JSON.stringify({ uploaded_from: "console" }))
        form.append("force_reupload", "false")
        setBusy(true)
        setFailure(undefined)
        const reset = event.currentTarget
        session.client.knowledgeBaseUploads.uploadFiles({ path: { knowledge_base_id: baseId }, payload: form }).then(
          (answer) => {
            setBusy(false)
            setFiles([])
            reset.reset()
            if (answer.upload_ids[0] !== undefined) onUploaded(answer.upload_ids[0])
          },
          (error: unknown) => {
            setFailure(error)
            setBusy(false)
          }
        )
      }}
    >
      <h2>Upload files</h2>
      <div class="row">
        <label for="kb-files">Files</label>
        <input
          id="kb-files"
          type="file"
          multiple
          required
          onChange={(event) => setFiles(Array.from(event.currentTarget.files ?? []))}
        />
        <label for="kb-chunk-size">Chunk size (characters)</label>
        <input
          id="kb-chunk-size"
          type="number"
          min={1}
          value={chunkSize}
          class="narrow"
          onInput={(event) => setChunkSize(Math.max(1, Number(event.currentTarget.value) || 1))}
        />
        <button type="submit" class="primary" disabled={busy || files.length === 0}>{busy ? "Uploading…" : "Upload"}</button>
      </div>
      <p class="muted">Text, Markdown, HTML, PDF and the other types of docs/knowledge-bases.md; 1 MiB a request unless the server allows more.</p>
      {failure !== undefined && <ErrorBox error={failure} />}
    </form>
  )
}

/** Counts of an upload's artifacts, as a bar and in words. */
const Progress = ({ upload }: { readonly upload: KnowledgeBaseUpload }) => {
  const status = upload.artifacts_status
  const total = status.artifacts_pending + status.artifacts_chunking + status.artifacts_uploading + status.artifacts_embedding +
    status.artifacts_completed + status.artifacts_failed
  const done = status.artifacts_completed + status.artifacts_failed
  return (
    <div class="stack">
      <progress max={Math.max(total, 1)} value={upload.status === "Running" ? done : Math.max(total, 1)} aria-label="Ingestion">
        {done} of {total}
      </progress>
      <p class="muted">
        {status.artifacts_completed} completed, {status.artifacts_failed} failed, {status.artifacts_pending} pending,{" "}
        {status.artifacts_chunking} chunking, {status.artifacts_embedding} embedding (of {total})
      </p>
    </div>
  )
}

/** The upload just made, with its artifacts, read again while it runs (from 0.5 s, doubling, never while hidden). */
const UploadProgress = ({ session, baseId, uploadId }: { readonly session: Session; readonly baseId: string; readonly uploadId: string }) => {
  const upload = usePolled(
    () =>
      session.client.knowledgeBaseUploads.get({
        path: { knowledge_base_id: baseId, upload_id: uploadId },
        urlParams: { include_artifact_list: true }
      }),
    [uploadId],
    (upload) => upload.status === "Running",
    500
  )
  return (
    <div class="card stack" aria-labelledby="upload-title">
      <h2 id="upload-title">Ingestion</h2>
      <Show loaded={upload} what="the upload">
        {(upload) => (
          <>
            <p role="status" aria-live="polite">
              Upload <code>{upload.upload_id}</code>: <span class={`badge status-${upload.status.toLowerCase()}`}>{upload.status}</span>
              {upload.status_reason !== null && <> {upload.status_reason}</>}
            </p>
            <Progress upload={upload} />
            {upload.artifacts.length > 0 && (
              <table>
                <caption class="sr-only">Artifacts of the upload</caption>
                <thead>
                  <tr>
                    <th scope="col">Artifact</th>
                    <th scope="col">State</th>
                    <th scope="col">Chunks</th>
                    <th scope="col">Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {upload.artifacts.map((artifact) => (
                    <tr key={artifact.artifact_id}>
                      <td>{artifact.artifact_name}</td>
                      <td><span class={`badge status-${artifact.status.toLowerCase()}`}>{artifact.status}</span></td>
                      <td>{artifact.chunks_status.chunks_completed}</td>
                      <td>{artifact.status_reason ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Show>
    </div>
  )
}

/** The base's uploads, newest first, a page at a time; read again while one of them runs. */
const Uploads = ({ session, baseId }: { readonly session: Session; readonly baseId: string }) => {
  const [page, setPage] = useState(1)
  const uploads = usePolled(
    () => session.client.knowledgeBaseUploads.list({ path: { knowledge_base_id: baseId }, urlParams: { page, limit: 10 } }),
    [baseId, page],
    (result) => result.items.some((upload) => upload.status === "Running")
  )
  return (
    <>
      <h2>Uploads</h2>
      <Show loaded={uploads} what="uploads">
        {(result) =>
          result.items.length === 0
            ? <Empty>No uploads yet: upload files above.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Uploads of the knowledge base</caption>
                  <thead>
                    <tr>
                      <th scope="col">Upload</th>
                      <th scope="col">State</th>
                      <th scope="col">Summary</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((upload) => (
                      <tr key={upload.id}>
                        <td><code>{upload.id}</code></td>
                        <td><span class={`badge status-${upload.status.toLowerCase()}`}>{upload.status}</span></td>
                        <td>{upload.status_reason ?? "—"}</td>
                        <td>{when(upload.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <Pager page={page} pageSize={10} total={result.total_item_count} onPage={setPage} />
              </>
            )}
      </Show>
    </>
  )
}

/** A query of the base: the chunks best first, each with its score and its artifact (`title`, `metadata`). */
const QueryForm = ({ session, baseId }: { readonly session: Session; readonly baseId: string }) => {
  const [query, setQuery] = useState("")
  const [topK, setTopK] = useState(5)
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<{ readonly chunks: ReadonlyArray<Chunk> } | undefined>(undefined)
  const [failure, setFailure] = useState<unknown>(undefined)
  return (
    <>
      <form
        class="card stack"
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          setFailure(undefined)
          session.client.knowledgeBases.query({ path: { knowledge_base_id: baseId }, payload: { query: query.trim(), top_k: topK } })
            .then(setAnswer, setFailure)
            .finally(() => setBusy(false))
        }}
      >
        <h2>Query</h2>
        <div class="row">
          <label for="kb-query">Query</label>
          <input id="kb-query" class="wide" value={query} required onInput={(event) => setQuery(event.currentTarget.value)} />
          <label for="kb-top-k">Chunks to return</label>
          <input
            id="kb-top-k"
            type="number"
            min={1}
            max={100}
            class="narrow"
            value={topK}
            onInput={(event) => setTopK(Math.min(100, Math.max(1, Number(event.currentTarget.value) || 1)))}
          />
          <button type="submit" class="primary" disabled={busy || query.trim() === ""}>{busy ? "Searching…" : "Search"}</button>
        </div>
        {failure !== undefined && <ErrorBox error={failure} />}
      </form>
      {answer !== undefined && (
        answer.chunks.length === 0
          ? <Empty>No chunk matches: upload files first, or wait for their ingestion to complete.</Empty>
          : (
            <ol class="chunks" aria-label="Chunks found">
              {answer.chunks.map((chunk) => (
                <li key={chunk.chunk_id} class="chunk">
                  <div class="row">
                    <span class="badge score" title="Score (0 to 1, higher is closer)">score {chunk.score.toFixed(3)}</span>
                    <span>from <strong>{chunk.title ?? "an artifact"}</strong></span>
                  </div>
                  <p>{chunk.text}</p>
                  {chunk.metadata !== null && (
                    <details>
                      <summary>Metadata (the artifact's fields and tags)</summary>
                      <pre>{JSON.stringify(chunk.metadata, null, 2)}</pre>
                    </details>
                  )}
                </li>
              ))}
            </ol>
          )
      )}
    </>
  )
}
