/**
 * Lifecycles: the account's resources that move through states, each list read again while one of
 * them is still moving (`usePolled`: after 1 s, then twice as long up to 10 s, never while the
 * tab is hidden): model deployments (`GET /v4/model-deployments`, `PENDING` until provisioned),
 * agent tasks (`GET /tasks`, `RUNNING` or `INTERRUPTED` until final), and the other families the
 * engine moves that have an account-wide list (`families` below: application deployments, v5
 * models, fine-tuning jobs, builds, agent runtime deployments, application variant reports,
 * deployment package install jobs, v5 evaluations; knowledge base uploads through the first page of
 * the knowledge bases, generation jobs through the first page of the evaluation datasets, the parent's
 * name a column), each a compact
 * table of its first page with Previous and Next. With the control plane's
 * admin key (docs/control-plane.md; kept like the API key, in this tab's sessionStorage, never in
 * a URL or a log): the progression and step length, the fault rules, the engine's health and the
 * parked steps, each advanced with a button (`manual` progression), polled the same way.
 */
import { makePromiseClientOf, PlatformApiError } from "@platform-kit/client"
import type { ParkedStep } from "@platform-kit/schema"
import { useEffect, useState } from "preact/hooks"
import { ConsoleApi } from "../api.js"
import { Link } from "../router.js"
import { adminKeyItem, inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Pager, Show, usePolled, when } from "../ui.js"
import { CursorPager, useCursor } from "./evaluations.js"

const pageSize = 10
const movingDeployment = (status: string) => status === "PENDING" || status === "DEPLOYING"
const movingTask = (status: string) => status === "RUNNING" || status === "INTERRUPTED"
const badge = (status: string) => <span class={`badge status-${status.toLowerCase().replace(/_/g, "-")}`}>{status}</span>

export const LifecyclesPage = ({ session }: { readonly session: Session }) => {
  // an advance from the control plane reads the lists again at once (their state moved)
  const [advanced, setAdvanced] = useState(0)
  return (
  <section aria-labelledby="lifecycles-title">
    <h1 id="lifecycles-title">Lifecycles</h1>
    <p class="muted">
      Resources with a state, read again while one of them moves. Simulated steps (provisioning, training) move as the
      control plane's progression says (docs/control-plane.md).
    </p>
    <Deployments session={session} advanced={advanced} />
    <Tasks session={session} advanced={advanced} />
    {families.map((family) => <FamilyList key={family.key} family={family} session={session} advanced={advanced} />)}
    <ControlPlane session={session} onAdvanced={() => setAdvanced((n) => n + 1)} />
  </section>
  )
}

const Deployments = ({ session, advanced }: { readonly session: Session; readonly advanced: number }) => {
  const [page, setPage] = useState(1)
  const deployments = usePolled(
    () => session.client.models.listDeployments({ urlParams: { page, limit: pageSize, ...inAccount(session) } }),
    [page, advanced],
    (result) => result.items.some((deployment) => movingDeployment(deployment.status))
  )
  return (
    <>
      <h2 id="deployments-title">Model deployments</h2>
      <Show loaded={deployments} what="model deployments">
        {(result) =>
          result.items.length === 0
            ? <Empty>No model deployments in this account.</Empty>
            : (
              <>
                <table aria-labelledby="deployments-title">
                  <thead>
                    <tr>
                      <th scope="col">Deployment</th>
                      <th scope="col">State</th>
                      <th scope="col">Model</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((deployment) => (
                      <tr key={deployment.id}>
                        <td>{deployment.name}</td>
                        <td>{badge(deployment.status)}</td>
                        <td><Link to={`/models/${encodeURIComponent(deployment.model_instance_id)}`} label={`Model of ${deployment.name}`}>model</Link></td>
                        <td>{when(deployment.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <Pager page={page} pageSize={pageSize} total={result.total_item_count} onPage={setPage} />
              </>
            )}
      </Show>
    </>
  )
}

const Tasks = ({ session, advanced }: { readonly session: Session; readonly advanced: number }) => {
  const [page, setPage] = useState(1)
  const tasks = usePolled(
    () => session.client.tasks.list({ urlParams: { limit: pageSize, page_number: page } }),
    [page, advanced],
    (items) => items.some((task) => movingTask(task.status))
  )
  return (
    <>
      <h2 id="tasks-title">Agent tasks</h2>
      <Show loaded={tasks} what="tasks">
        {(items) =>
          items.length === 0 && page === 1
            ? <Empty>No agent tasks in this account.</Empty>
            : (
              <>
                <table aria-labelledby="tasks-title">
                  <thead>
                    <tr>
                      <th scope="col">Task</th>
                      <th scope="col">State</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((task) => (
                      <tr key={task.id}>
                        <td><Link to={`/agents/tasks/${encodeURIComponent(task.id)}`}>{task.name ?? task.id}</Link></td>
                        <td>{badge(task.status)}</td>
                        <td>{when(task.updated_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <nav class="row" aria-label="Pages of the tasks">
                  <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
                  <span>Page {page}</span>
                  <button type="button" disabled={items.length < pageSize} onClick={() => setPage(page + 1)}>Next</button>
                </nav>
              </>
            )}
      </Show>
    </>
  )
}

/** A row of a family's list: what the page shows of any resource with a state. */
interface Row {
  readonly id: string
  readonly name: string
  readonly state: string
  readonly at: string
  /** The parent's name, for families listed per parent (knowledge base uploads). */
  readonly parent?: string
}

/** A page of a family's list: `hasMore` from the v5 cursor, or the v4 page's count. */
interface Listed {
  readonly rows: ReadonlyArray<Row>
  readonly total: number
  readonly hasMore: boolean
}

/**
 * A family whose resources move by themselves (docs/engine.md), read through its account-wide list:
 * `list(page, after)` answers the page `page` (v4 lists) or the page after the row `after` (v5
 * cursor lists); while a row is in one of the `moving` states the list is read again.
 */
interface Family {
  readonly key: string
  readonly title: string
  readonly noun: string
  readonly moving: ReadonlyArray<string>
  /** For families listed per parent: the parent column's title and the limit said on the page. */
  readonly parent?: { readonly title: string; readonly note: string }
  readonly list: (session: Session, page: number, after: string | undefined) => Promise<Listed>
}

const v4Page = <A,>(page: number, result: { readonly items: ReadonlyArray<A>; readonly total_item_count: number }, row: (item: A) => Row): Listed => ({
  rows: result.items.map(row),
  total: result.total_item_count,
  hasMore: page * pageSize < result.total_item_count
})

const v5Page = <A,>(result: { readonly items: ReadonlyArray<A>; readonly total: number; readonly has_more: boolean }, row: (item: A) => Row): Listed => ({
  rows: result.items.map(row),
  total: result.total,
  hasMore: result.has_more
})

const cursorOf = (after: string | undefined) => (after === undefined ? {} : { starting_after: after })

/** Parents read for a family listed per parent: the first page of them (said on the page). */
const parentLimit = 20

const families: ReadonlyArray<Family> = [
  {
    key: "application-deployments",
    title: "Application deployments",
    noun: "application deployments",
    moving: ["PENDING"],
    list: (session, page) =>
      session.client.applications.listDeployments({ urlParams: { page, limit: pageSize, ...inAccount(session) } })
        .then((result) => v4Page(page, result, (item) => ({ id: item.id, name: item.name, state: item.status, at: item.created_at })))
  },
  {
    key: "models-v5",
    title: "v5 models",
    noun: "v5 models",
    moving: ["deploying"],
    list: (session, _page, after) =>
      session.client.modelsV5.list({ urlParams: { limit: pageSize, ...cursorOf(after), ...inAccount(session) } })
        .then((result) => v5Page(result, (item) => ({ id: item.id, name: item.name, state: item.status, at: item.created_at })))
  },
  {
    key: "fine-tuning-jobs",
    title: "Fine-tuning jobs",
    noun: "fine-tuning jobs",
    moving: ["PENDING", "RUNNING"],
    list: (session, page) =>
      session.client.fineTuningJobs.list({ urlParams: { page, limit: pageSize, ...inAccount(session) } })
        .then((result) => v4Page(page, result, (item) => ({ id: item.id, name: item.id, state: item.status, at: item.created_at })))
  },
  {
    key: "builds",
    title: "Builds",
    noun: "builds",
    moving: ["queued", "running"],
    list: (session, _page, after) =>
      session.client.builds.list({ urlParams: { limit: pageSize, ...cursorOf(after), ...inAccount(session) } })
        .then((result) => v5Page(result, (item) => ({ id: item.id, name: `${item.image_name}:${item.image_tag}`, state: item.status, at: item.created_at })))
  },
  {
    key: "agent-runtime-deployments",
    title: "Agent runtime deployments",
    noun: "agent runtime deployments",
    moving: ["PENDING", "DEPLOYING"],
    list: (session, _page, after) =>
      session.client.agentRuntime.list({ urlParams: { limit: pageSize, ...cursorOf(after), ...inAccount(session) } })
        .then((result) => v5Page(result, (item) => ({ id: item.id, name: item.agent_name ?? item.id, state: item.status, at: item.created_at })))
  },
  {
    key: "application-variant-reports",
    title: "Application variant reports",
    noun: "application variant reports",
    moving: ["Pending", "Running"],
    // a report's state is its generating job's (`view=AsyncJobs`)
    list: (session, page) =>
      session.client.applicationVariantReports.list({ urlParams: { page, limit: pageSize, view: ["AsyncJobs"], ...inAccount(session) } })
        .then((result) =>
          v4Page(page, result, (item) => ({
            id: item.id,
            name: item.id,
            state: item.async_jobs?.[0]?.status ?? "—",
            at: item.created_at
          }))
        )
  },
  {
    key: "install-jobs",
    title: "Deployment package install jobs",
    noun: "deployment package install jobs",
    moving: ["PENDING", "RUNNING"],
    // listed per account (the path's): the session's account
    list: (session, page) =>
      session.accountId === undefined
        ? Promise.resolve({ rows: [], total: 0, hasMore: false })
        : session.client.deploymentPackages.listInstallJobs({ path: { account_id: session.accountId }, urlParams: { page, limit: pageSize } })
          .then((result) =>
            v4Page(page, result, (item) => ({ id: item.id, name: item.deployment_package_name ?? item.id, state: item.status, at: item.created_at }))
          )
  },
  {
    // no account-wide list: the first page of the account's knowledge bases, each one's first page of uploads
    key: "knowledge-base-uploads",
    title: "Knowledge base uploads",
    noun: "knowledge base uploads",
    moving: ["Running"],
    parent: { title: "Knowledge base", note: `The first ${parentLimit} knowledge bases, the first ${pageSize} uploads of each.` },
    list: async (session) => {
      const bases = await session.client.knowledgeBases.list({ urlParams: { page: 1, limit: parentLimit, ...inAccount(session) } })
      const perBase = await Promise.all(
        bases.items.map((base) =>
          session.client.knowledgeBaseUploads.list({ path: { knowledge_base_id: base.knowledge_base_id }, urlParams: { page: 1, limit: pageSize } })
            .then((result) =>
              result.items.map((item): Row => ({ id: item.id, name: item.id, state: item.status, at: item.created_at, parent: base.knowledge_base_name }))
            )
        )
      )
      const rows = perBase.flat()
      return { rows, total: rows.length, hasMore: false }
    }
  },
  {
    // no account-wide list: the first page of the evaluation datasets; only those with a knowledge
    // base (autogenerated test cases) have generation jobs, each one's list (never paged)
    key: "generation-jobs",
    title: "Evaluation dataset generation jobs",
    noun: "evaluation dataset generation jobs",
    moving: ["Pending", "Running"],
    parent: { title: "Evaluation dataset", note: `The generation jobs of the first ${parentLimit} evaluation datasets.` },
    list: async (session) => {
      const datasets = await session.client.evaluationDatasets.list({ urlParams: { page: 1, limit: parentLimit, ...inAccount(session) } })
      const perDataset = await Promise.all(
        datasets.items.filter((dataset) => dataset.knowledge_base_id !== null).map((dataset) =>
          session.client.generationJobs.list({ path: { evaluation_dataset_id: dataset.id } })
            .then((result) =>
              result.generation_jobs.map((job): Row => ({
                id: job.generation_job_id,
                name: job.generation_job_id,
                state: job.status,
                at: job.created_at,
                parent: dataset.name
              }))
            )
        )
      )
      const rows = perDataset.flat()
      return { rows, total: rows.length, hasMore: false }
    }
  },
  {
    key: "evaluations",
    title: "v5 evaluations",
    noun: "v5 evaluations",
    moving: ["running"],
    list: (session, _page, after) =>
      session.client.evaluations.list({ urlParams: { limit: pageSize, ...cursorOf(after), ...inAccount(session) } })
        .then((result) => v5Page(result, (item) => ({ id: item.id, name: item.name, state: item.status, at: item.created_at })))
  }
]

/** One family: its first page (Previous and Next), read again while one of its rows moves. */
const FamilyList = (
  { family, session, advanced }: { readonly family: Family; readonly session: Session; readonly advanced: number }
) => {
  // v5 lists page by cursor (the last id of each page before); v4 lists by the same count
  const cursor = useCursor()
  const listed = usePolled(
    () => family.list(session, cursor.page, cursor.startingAfter),
    [cursor.startingAfter, advanced],
    (result) => result.rows.some((row) => family.moving.includes(row.state))
  )
  const titleId = `${family.key}-title`
  return (
    <>
      <h2 id={titleId}>{family.title}</h2>
      {family.parent !== undefined && <p class="muted">{family.parent.note}</p>}
      <Show loaded={listed} what={family.noun}>
        {(result) =>
          result.rows.length === 0 && cursor.page === 1
            ? <Empty>No {family.noun} in this account.</Empty>
            : (
              <>
                <table aria-labelledby={titleId} class="lifecycle">
                  <thead>
                    <tr>
                      {family.parent !== undefined && <th scope="col">{family.parent.title}</th>}
                      <th scope="col">Name</th>
                      <th scope="col">State</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.rows.map((row) => (
                      <tr key={row.id}>
                        {family.parent !== undefined && <td>{row.parent}</td>}
                        <td>{row.name === row.id ? <code>{row.id}</code> : row.name}</td>
                        <td>{badge(row.state)}</td>
                        <td>{when(row.at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <CursorPager
                  cursor={cursor}
                  hasMore={result.hasMore}
                  lastId={result.rows[result.rows.length - 1]?.id}
                  total={result.total}
                  label={`Pages of the ${family.noun}`}
                />
              </>
            )}
      </Show>
    </>
  )
}

/** The kit's client with the admin key (`x-admin-key`): the control plane's routes (`client.admin.*`). */
const adminClient = (session: Session, adminKey: string) =>
  makePromiseClientOf(ConsoleApi, { baseUrl: location.origin, apiKey: session.key, accountId: session.accountId, adminKey })

const ControlPlane = ({ session, onAdvanced }: { readonly session: Session; readonly onAdvanced: () => void }) => {
  const [adminKey, setAdminKey] = useState<string | null>(() => sessionStorage.getItem(adminKeyItem))
  const [draft, setDraft] = useState("")
  return (
    <>
      <h2>Control plane</h2>
      {adminKey === null
        ? (
          <form
            class="row"
            aria-label="Open the control plane"
            onSubmit={(event) => {
              event.preventDefault()
              sessionStorage.setItem(adminKeyItem, draft.trim())
              setAdminKey(draft.trim())
              setDraft("")
            }}
          >
            <label for="admin-key">Admin key (<code>PLATFORM_ADMIN_KEY</code>)</label>
            <input id="admin-key" type="password" autoComplete="off" value={draft} onInput={(event) => setDraft(event.currentTarget.value)} />
            <button type="submit" class="primary" disabled={draft.trim() === ""}>Open</button>
          </form>
        )
        : (
          <AdminPanel
            session={session}
            adminKey={adminKey}
            onAdvanced={onAdvanced}
            forget={() => {
              sessionStorage.removeItem(adminKeyItem)
              setAdminKey(null)
            }}
          />
        )}
    </>
  )
}

const AdminPanel = (
  { session, adminKey, onAdvanced, forget }: {
    readonly session: Session
    readonly adminKey: string
    readonly onAdvanced: () => void
    readonly forget: () => void
  }
) => {
  const [client] = useState(() => adminClient(session, adminKey))
  const [advanced, setAdvanced] = useState(0)
  const [failure, setFailure] = useState<unknown>(undefined)
  useEffect(() => () => void client.close(), [])
  const state = usePolled(
    async () => {
      const [controls, engine, parked] = await Promise.all([
        client.admin.getControls(),
        client.admin.getEngineHealth(),
        client.admin.listParkedSteps()
      ])
      return { controls, engine, parked }
    },
    [advanced],
    // while the engine works or a step waits, things move
    (value) => value.engine.running > 0 || value.parked.length > 0 || value.engine.status === "loading"
  )
  const advance = (step: ParkedStep | undefined) => {
    setFailure(undefined)
    client.admin.advanceParkedSteps({ payload: step === undefined ? {} : { lifecycle: step.lifecycle, id: step.id } })
      .then(() => {
        setAdvanced((n) => n + 1)
        onAdvanced()
      }, setFailure)
  }
  if (state.state === "failed" && state.error instanceof PlatformApiError && (state.error.status === 401 || state.error.status === 404)) {
    return (
      <>
        <ErrorBox error={state.error} />
        <p class="muted">A 401 is a wrong admin key; a 404, a server started without <code>PLATFORM_ADMIN_KEY</code>.</p>
        <button type="button" onClick={forget}>Forget the admin key</button>
      </>
    )
  }
  return (
    <Show loaded={state} what="the control plane">
      {({ controls, engine, parked }) => (
        <div class="stack">
          <dl class="facts" aria-label="Controls">
            <dt>Progression</dt>
            <dd data-testid="progression">{controls.progression}</dd>
            <dt>Step length</dt>
            <dd>{controls.step_seconds} s</dd>
            <dt>Engine</dt>
            <dd>{engine.status}: {engine.running} running, {engine.parked} parked, {engine.failed} failed</dd>
            <dt>Fault rules</dt>
            <dd>
              {controls.lifecycle_faults.length === 0
                ? "none"
                : controls.lifecycle_faults.map((fault) => `${fault.lifecycle}: ${Math.round(fault.share * 100)}% fail (${fault.reason})`).join("; ")}
            </dd>
            <dt>Route faults</dt>
            <dd>{controls.route_faults.length === 0 ? "none" : controls.route_faults.map((fault) => fault.path_prefix).join(", ")}</dd>
          </dl>
          <h3 id="parked-title">Parked steps</h3>
          {parked.length === 0
            ? <Empty>No step is parked{controls.progression === "manual" ? "" : ` (steps park only in manual progression)`}.</Empty>
            : (
              <>
                <table aria-labelledby="parked-title">
                  <thead>
                    <tr>
                      <th scope="col">Lifecycle</th>
                      <th scope="col">Entity</th>
                      <th scope="col">Step</th>
                      <th scope="col">Parked</th>
                      <th scope="col"><span class="sr-only">Advance</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    {parked.map((step) => (
                      <tr key={`${step.lifecycle}/${step.id}`}>
                        <td>{step.lifecycle}</td>
                        <td><code>{step.id}</code></td>
                        <td>{step.step}</td>
                        <td>{when(step.parked_at)}</td>
                        <td>
                          <button type="button" aria-label={`Advance ${step.step} of ${step.id}`} onClick={() => advance(step)}>Advance</button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <button type="button" onClick={() => advance(undefined)}>Advance all</button>
              </>
            )}
          {failure !== undefined && <ErrorBox error={failure} />}
          <div class="row">
            <button type="button" onClick={forget}>Forget the admin key</button>
          </div>
        </div>
      )}
    </Show>
  )
}
