/**
 * The model registry: the models of the selected account (`GET /v4/models`, a page at a time) and
 * a model with its deployments and their states (`GET /v4/models/{id}`,
 * `GET /v4/models/{id}/deployments`, polled while one is `PENDING`).
 */
import { useState } from "preact/hooks"
import { Link } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, Pager, Show, useLoad, usePolled, when } from "../ui.js"

const pageSize = 50

export const ModelsPage = ({ session }: { readonly session: Session }) => {
  const [page, setPage] = useState(1)
  const models = useLoad(
    () => session.client.models.list({ urlParams: { page, limit: pageSize, ...inAccount(session) } }),
    [page]
  )
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      <Show loaded={models} what="models">
        {(result) =>
          result.items.length === 0
            ? (
              <Empty>
                No models in this account yet. Register one with <code>POST /v4/models</code> (docs/models.md); the
                playground runs the built-in model meanwhile.
              </Empty>
            )
            : (
              <>
                <table>
                  <caption class="sr-only">Models of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Deployments</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((model) => (
                      <tr key={model.id}>
                        <td><Link to={`/models/${encodeURIComponent(model.id)}`}>{model.display_name ?? model.name}</Link></td>
                        <td>{model.model_type}</td>
                        <td>{model.deployment_count}</td>
                        <td>{when(model.created_at)}</td>
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

export const ModelPage = ({ session, modelId }: { readonly session: Session; readonly modelId: string }) => {
  const model = useLoad(() => session.client.models.get({ path: { model_id: modelId }, urlParams: {} }), [modelId])
  // a deployment `PENDING` is being provisioned: its state is polled until it has moved on
  const deployments = usePolled(
    () => session.client.models.listInstanceDeployments({ path: { model_instance_id: modelId }, urlParams: { limit: 100 } }),
    [modelId],
    (result) => result.items.some((deployment) => deployment.status === "PENDING")
  )
  return (
    <section aria-labelledby="model-title">
      <p><Link to="/models">← Models</Link></p>
      <Show loaded={model} what="the model">
        {(model) => (
          <>
            <h1 id="model-title">{model.display_name ?? model.name}</h1>
            <dl class="facts">
              <dt>Id</dt>
              <dd><code>{model.id}</code></dd>
              <dt>Type</dt>
              <dd>{model.model_type}</dd>
              <dt>Description</dt>
              <dd>{model.description ?? "—"}</dd>
              <dt>Created</dt>
              <dd>{when(model.created_at)}</dd>
            </dl>
          </>
        )}
      </Show>
      <h2>Deployments</h2>
      <Show loaded={deployments} what="deployments">
        {(result) =>
          result.items.length === 0
            ? <Empty>No deployments of this model.</Empty>
            : (
              <table>
                <caption class="sr-only">Deployments of the model</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">State</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Created</th>
                    <th scope="col"><span class="sr-only">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {result.items.map((deployment) => (
                    <tr key={deployment.id}>
                      <td>{deployment.name}</td>
                      <td><span class={`badge status-${deployment.status.toLowerCase()}`}>{deployment.status}</span></td>
                      <td>{String(deployment.model_creation_parameters?.["provider"] ?? "builtin")}</td>
                      <td>{when(deployment.created_at)}</td>
                      <td>
                        {deployment.status === "READY"
                          ? (
                            <Link to={`/playground?model=${encodeURIComponent(deployment.id)}`} label={`Open in playground: ${deployment.name}`}>
                              Open in playground
                            </Link>
                          )
                          : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
      </Show>
      {deployments.state === "done" && deployments.value.total_item_count > deployments.value.items.length && (
        <p class="muted">The first {deployments.value.items.length} of {deployments.value.total_item_count} deployments.</p>
      )}
    </section>
  )
}
