/**
 * Applications (docs/applications.md): the account's specs a page at a time
 * (`GET /v4/application-specs`), a spec's variants (`GET /v4/application-variants`), and a
 * variant: its graph drawn as nodes and edges (graph.tsx), a process form
 * (`POST /v4/applications/{variant}/process` on the input nodes' values) with the answer, and the
 * run as recorded (`GET /v4/applications/{spec}/interactions/{id}`): its duration, tokens and
 * each node's latency.
 */
import type { ApplicationInteraction, ApplicationNode, ApplicationVariant } from "@platform-kit/schema"
import { useState } from "preact/hooks"
import { Graph } from "../graph.js"
import { Link } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Pager, Show, useLoad, when } from "../ui.js"

const pageSize = 20

export const ApplicationsPage = ({ session }: { readonly session: Session }) => {
  const [page, setPage] = useState(1)
  const specs = useLoad(
    () => session.client.applicationSpecs.list({ urlParams: { page, limit: pageSize, ...inAccount(session) } }),
    [page]
  )
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Applications</h1>
      <Show loaded={specs} what="applications">
        {(result) =>
          result.items.length === 0
            ? (
              <Empty>
                No applications in this account yet. Create a spec and a variant with <code>POST /v4/application-specs</code>{" "}
                and <code>POST /v4/application-variants</code> (docs/applications.md).
              </Empty>
            )
            : (
              <>
                <table>
                  <caption class="sr-only">Applications of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Description</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((spec) => (
                      <tr key={spec.id}>
                        <td><Link to={`/applications/${encodeURIComponent(spec.id)}`}>{spec.name}</Link></td>
                        <td>{spec.description === "" ? "—" : spec.description}</td>
                        <td>{when(spec.created_at)}</td>
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

export const ApplicationPage = ({ session, specId }: { readonly session: Session; readonly specId: string }) => {
  const [page, setPage] = useState(1)
  const spec = useLoad(() => session.client.applicationSpecs.get({ path: { application_spec_id: specId } }), [specId])
  const variants = useLoad(
    () => session.client.applicationVariants.list({ urlParams: { application_spec_id: specId, page, limit: pageSize } }),
    [specId, page]
  )
  return (
    <section aria-labelledby="app-title">
      <p><Link to="/applications">← Applications</Link></p>
      <Show loaded={spec} what="the application">
        {(spec) => (
          <>
            <h1 id="app-title">{spec.name}</h1>
            <dl class="facts">
              <dt>Id</dt>
              <dd><code>{spec.id}</code></dd>
              <dt>Description</dt>
              <dd>{spec.description === "" ? "—" : spec.description}</dd>
              <dt>Created</dt>
              <dd>{when(spec.created_at)}</dd>
            </dl>
          </>
        )}
      </Show>
      <h2>Variants</h2>
      <Show loaded={variants} what="variants">
        {(result) =>
          result.items.length === 0
            ? <Empty>No variants of this application: add one with <code>POST /v4/application-variants</code>.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">Variants of the application</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Version</th>
                      <th scope="col">Draft</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((variant) => (
                      <tr key={variant.id}>
                        <td>
                          <Link to={`/applications/${encodeURIComponent(specId)}/variants/${encodeURIComponent(variant.id)}`}>
                            {variant.name}
                          </Link>
                        </td>
                        <td>{variant.version}</td>
                        <td>{variant.draft ? "yes" : "no"}</td>
                        <td>{when(variant.created_at)}</td>
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

export const VariantPage = ({ session, specId, variantId }: { readonly session: Session; readonly specId: string; readonly variantId: string }) => {
  const variant = useLoad(() => session.client.applicationVariants.get({ path: { application_variant_id: variantId } }), [variantId])
  return (
    <section aria-labelledby="variant-title">
      <p><Link to={`/applications/${encodeURIComponent(specId)}`}>← Variants</Link></p>
      <Show loaded={variant} what="the variant">
        {(variant) => (
          <>
            <h1 id="variant-title">{variant.name} <span class="muted">({variant.version})</span></h1>
            {variant.description !== null && <p>{variant.description}</p>}
            {variant.version === "V0"
              ? (
                <>
                  <h2>Graph</h2>
                  <Graph nodes={variant.configuration.nodes} edges={variant.configuration.edges} label={`Graph of ${variant.name}`} />
                  <ProcessForm session={session} variant={variant} />
                </>
              )
              : (
                <Empty>
                  {variant.version === "OFFLINE"
                    ? "An offline variant does not run on the platform: nothing to draw or run here."
                    : "An agents-service variant runs through its agent (docs/applications.md \"Agents-service variants\"): its graph is the agent's."}
                </Empty>
              )}
          </>
        )}
      </Show>
    </section>
  )
}

/** The request value each input kind reads, and whether it is a list (comma-separated in the form). */
const inputKinds: Record<string, { readonly field: string; readonly list: boolean; readonly label: string }> = {
  text_input_schema: { field: "input-text", list: false, label: "Text" },
  knowledge_base_input_schema: { field: "knowledge_base_id", list: false, label: "Knowledge base id" },
  multi_knowledge_base_input_schema: { field: "knowledge_base_ids", list: true, label: "Knowledge base ids, comma-separated" },
  completion_model_input_schema: { field: "completion_model_id", list: false, label: "Model (a deployment id, or builtin)" },
  document_input_schema: { field: "file_ids", list: true, label: "Application file ids, comma-separated" }
}

type Ran = { readonly answer: Readonly<Record<string, unknown>>; readonly interaction: ApplicationInteraction | undefined }

const ProcessForm = ({ session, variant }: { readonly session: Session; readonly variant: ApplicationVariant & { readonly version: "V0" } }) => {
  const inputs = variant.configuration.nodes.filter((node) => node.application_node_schema_id in inputKinds)
  const [values, setValues] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [ran, setRan] = useState<Ran | undefined>(undefined)
  const [failure, setFailure] = useState<unknown>(undefined)
  const request = (node: ApplicationNode) => {
    const kind = inputKinds[node.application_node_schema_id]!
    const value = values[node.id] ?? ""
    return { [kind.field]: kind.list ? value.split(",").map((part) => part.trim()).filter((part) => part !== "") : value }
  }
  return (
    <>
      <form
        class="card stack"
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          setFailure(undefined)
          setRan(undefined)
          const body = Object.fromEntries(inputs.map((node) => [node.id, request(node)]))
          session.client.applications.process({ path: { application_variant_id: variant.id }, payload: { inputs: body } })
            .then(async (answer) => {
              // the run as recorded: its duration, tokens and each node's latency
              const interactionId = answer["application_interaction_id"]
              const interaction = typeof interactionId === "string"
                ? await session.client.applications.getInteraction({
                  path: { application_spec_id: variant.application_spec_id, interaction_id: interactionId }
                }).catch(() => undefined)
                : undefined
              setRan({ answer, interaction })
            }, setFailure)
            .finally(() => setBusy(false))
        }}
      >
        <h2>Run</h2>
        {inputs.length === 0 && <p class="muted">The graph has no input node: it runs on nothing.</p>}
        {inputs.map((node) => {
          const kind = inputKinds[node.application_node_schema_id]!
          const id = `input-${node.id}`
          return (
            <div key={node.id} class="stack">
              <label for={id}>Input <code>{node.id}</code>: {kind.label}</label>
              {kind.field === "input-text"
                ? (
                  <textarea
                    id={id}
                    rows={3}
                    value={values[node.id] ?? ""}
                    onInput={(event) => setValues({ ...values, [node.id]: event.currentTarget.value })}
                  />
                )
                : (
                  <input
                    id={id}
                    value={values[node.id] ?? ""}
                    onInput={(event) => setValues({ ...values, [node.id]: event.currentTarget.value })}
                  />
                )}
            </div>
          )
        })}
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>{busy ? "Running…" : "Run"}</button>
        </div>
        {failure !== undefined && <ErrorBox error={failure} />}
      </form>
      {ran !== undefined && <Answer ran={ran} />}
    </>
  )
}

const Answer = ({ ran }: { readonly ran: Ran }) => {
  const { answer, interaction } = ran
  const text = answer["output-text"]
  const rest = Object.fromEntries(Object.entries(answer).filter(([key]) => key !== "output-text"))
  const longest = Math.max(1, ...(interaction?.node_latencies ?? []).map((node) => node.duration_ms))
  return (
    <div class="card stack" aria-labelledby="answer-title">
      <h2 id="answer-title">Output</h2>
      {typeof text === "string" && <p class="output" data-testid="output">{text}</p>}
      <details>
        <summary>The whole answer</summary>
        <pre>{JSON.stringify(rest, null, 2)}</pre>
      </details>
      {interaction !== undefined && (
        <>
          <h3>Trace</h3>
          <p class="muted">
            Interaction <code>{interaction.id}</code>: {interaction.duration_ms} ms, {interaction.input_tokens} tokens in,{" "}
            {interaction.output_tokens} out{interaction.error !== null && <>; error: {interaction.error}</>}
          </p>
          <table class="trace">
            <caption class="sr-only">Each node's latency in this run</caption>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Latency</th>
                <th scope="col"><span class="sr-only">Bar</span></th>
              </tr>
            </thead>
            <tbody>
              {interaction.node_latencies.map((node) => (
                <tr key={node.node_id}>
                  <td><code>{node.node_id}</code></td>
                  <td>{node.duration_ms} ms</td>
                  <td class="bar-cell">
                    <span class="bar" style={{ width: `${Math.max(1, (node.duration_ms / longest) * 100)}%` }} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  )
}
