/**
 * The frame: sign-in, then a header (the account switcher, the theme, sign out), the navigation
 * and the page of the path. Pages of other families are added to `pages` as they come.
 */
import { PlatformApiError } from "@platform-kit/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { AgentPage, AgentsPage, TaskPage } from "./pages/agents.js"
import { ApplicationPage, ApplicationsPage, VariantPage } from "./pages/applications.js"
import { DashboardPage, DashboardsPage } from "./pages/dashboards.js"
import { EvaluationPage, EvaluationsPage } from "./pages/evaluations.js"
import { EvaluationsV4Page, EvaluationV4Page } from "./pages/evaluations-v4.js"
import { KnowledgeBasePage, KnowledgeBasesPage } from "./pages/knowledge-bases.js"
import { LifecyclesPage } from "./pages/lifecycles.js"
import { ModelPage, ModelsPage } from "./pages/models.js"
import { PlaygroundPage } from "./pages/playground.js"
import { TracePage, TracesPage } from "./pages/traces.js"
import { Link, navigate, useRoute } from "./router.js"
import { type Session, signIn, signOut, storedKey, switchAccount } from "./session.js"
import { ErrorBox, Loading } from "./ui.js"

type Theme = "light" | "dark"
const themeItem = "platform-kit.console.theme"

/** The theme chosen in this browser, else the system's (`prefers-color-scheme`). */
export const initialTheme = (): Theme => {
  const chosen = localStorage.getItem(themeItem)
  if (chosen === "light" || chosen === "dark") return chosen
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"
}

/** The navigation's entries: a path prefix and its label. */
const pages = [
  { path: "/models", label: "Models" },
  { path: "/playground", label: "Playground" },
  { path: "/knowledge-bases", label: "Knowledge bases" },
  { path: "/applications", label: "Applications" },
  { path: "/evaluations", label: "Evaluations" },
  { path: "/evaluations-v4", label: "v4 evaluations" },
  { path: "/dashboards", label: "Dashboards" },
  { path: "/traces", label: "Traces" },
  { path: "/agents", label: "Agents and tasks" },
  { path: "/lifecycles", label: "Lifecycles" }
] as const

export const App = () => {
  const [theme, setTheme] = useState<Theme>(initialTheme)
  const [session, setSession] = useState<Session | undefined>(undefined)
  // a key kept from earlier in this tab is signed in again on load; true while that is checked
  const [restoring, setRestoring] = useState(() => storedKey() !== null)
  const [restoreError, setRestoreError] = useState<unknown>(undefined)
  const path = useRoute()

  useEffect(() => {
    document.documentElement.dataset.theme = theme
  }, [theme])

  useEffect(() => {
    const key = storedKey()
    if (key === null) return
    signIn(key).then(setSession, (error: unknown) => {
      // a key the server refuses now (revoked) is forgotten; any other failure is shown on the form
      if (error instanceof PlatformApiError && error.status === 401) signOut(undefined)
      else setRestoreError(error)
    }).finally(() => setRestoring(false))
  }, [])

  // a page opened from the navigation takes the focus (not the first load's), so that the keyboard
  // and screen readers continue in its content
  const opened = useRef(path)
  useEffect(() => {
    if (path === opened.current) return
    opened.current = path
    document.getElementById("content")?.focus()
  }, [path])

  // `/console` itself opens the first page once signed in
  useEffect(() => {
    if (session !== undefined && path === "/") navigate("/models", { replace: true })
  }, [session, path])

  const toggleTheme = () => {
    const next = theme === "dark" ? "light" : "dark"
    localStorage.setItem(themeItem, next)
    setTheme(next)
  }

  if (restoring) return <main class="center"><Loading what="your session" /></main>
  if (session === undefined) {
    return <SignIn onSignedIn={setSession} theme={theme} toggleTheme={toggleTheme} initialError={restoreError} />
  }

  return (
    <div class="frame">
      <a class="skip" href="#content">Skip to content</a>
      <header class="top">
        <span class="brand">platform-kit console</span>
        <div class="controls">
          <AccountSwitcher session={session} onSwitch={(account) => setSession(switchAccount(session, account))} />
          <ThemeToggle theme={theme} toggle={toggleTheme} />
          <button
            type="button"
            onClick={() => {
              signOut(session)
              setSession(undefined)
              navigate("/")
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav class="side" aria-label="Pages">
        <ul>
          {pages.map((page) => (
            <li key={page.path}>
              <Link to={page.path} current={path === page.path || path.startsWith(`${page.path}/`)}>{page.label}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="content" class="content" tabIndex={-1}>
        <Page path={path} session={session} />
      </main>
    </div>
  )
}

const Page = ({ path, session }: { readonly path: string; readonly session: Session }) => {
  // the page's data belongs to the account: a switch loads it again (`key`)
  const account = session.accountId ?? ""
  const model = /^\/models\/([^/]+)$/.exec(path)
  if (path === "/models") return <ModelsPage key={account} session={session} />
  if (model !== null) return <ModelPage key={`${account}/${model[1]}`} session={session} modelId={decodeURIComponent(model[1]!)} />
  if (path === "/playground") return <PlaygroundPage key={account} session={session} />
  const base = /^\/knowledge-bases\/([^/]+)$/.exec(path)
  if (path === "/knowledge-bases") return <KnowledgeBasesPage key={account} session={session} />
  if (base !== null) {
    return <KnowledgeBasePage key={`${account}/${base[1]}`} session={session} baseId={decodeURIComponent(base[1]!)} />
  }
  const spec = /^\/applications\/([^/]+)$/.exec(path)
  const variant = /^\/applications\/([^/]+)\/variants\/([^/]+)$/.exec(path)
  if (path === "/applications") return <ApplicationsPage key={account} session={session} />
  if (spec !== null) return <ApplicationPage key={`${account}/${spec[1]}`} session={session} specId={decodeURIComponent(spec[1]!)} />
  if (variant !== null) {
    return (
      <VariantPage
        key={`${account}/${variant[2]}`}
        session={session}
        specId={decodeURIComponent(variant[1]!)}
        variantId={decodeURIComponent(variant[2]!)}
      />
    )
  }
  const trace = /^\/traces\/([^/]+)$/.exec(path)
  if (path === "/traces") return <TracesPage key={account} session={session} />
  if (trace !== null) return <TracePage key={`${account}/${trace[1]}`} session={session} traceId={decodeURIComponent(trace[1]!)} />
  const task = /^\/agents\/tasks\/([^/]+)$/.exec(path)
  const agent = /^\/agents\/([^/]+)$/.exec(path)
  if (path === "/agents") return <AgentsPage key={account} session={session} />
  if (path === "/lifecycles") return <LifecyclesPage key={account} session={session} />
  if (task !== null) return <TaskPage key={`${account}/${task[1]}`} session={session} taskId={decodeURIComponent(task[1]!)} />
  if (agent !== null) return <AgentPage key={`${account}/${agent[1]}`} session={session} agentId={decodeURIComponent(agent[1]!)} />
  const evaluation = /^\/evaluations\/([^/]+)$/.exec(path)
  const evaluationV4 = /^\/evaluations-v4\/([^/]+)$/.exec(path)
  if (path === "/evaluations") return <EvaluationsPage key={account} session={session} />
  if (evaluation !== null) {
    return <EvaluationPage key={`${account}/${evaluation[1]}`} session={session} evaluationId={decodeURIComponent(evaluation[1]!)} />
  }
  const dashboard = /^\/dashboards\/([^/]+)$/.exec(path)
  if (path === "/dashboards") return <DashboardsPage key={account} session={session} />
  if (dashboard !== null) {
    return <DashboardPage key={`${account}/${dashboard[1]}`} session={session} dashboardId={decodeURIComponent(dashboard[1]!)} />
  }
  if (path === "/evaluations-v4") return <EvaluationsV4Page key={account} session={session} />
  if (evaluationV4 !== null) {
    return <EvaluationV4Page key={`${account}/${evaluationV4[1]}`} session={session} evaluationId={decodeURIComponent(evaluationV4[1]!)} />
  }
  if (path === "/" || path === "") return null
  return <ErrorBox error={new Error(`No page at /console${path}`)} />
}

/** A toggle button: its name stays "Dark theme", its state is `aria-pressed` (shown by the stylesheet). */
const ThemeToggle = ({ theme, toggle }: { readonly theme: Theme; readonly toggle: () => void }) => (
  <button type="button" class="toggle" onClick={toggle} aria-pressed={theme === "dark"}>
    Dark theme
  </button>
)

const AccountSwitcher = ({ session, onSwitch }: { readonly session: Session; readonly onSwitch: (account: string) => void }) => {
  if (session.profiles.length === 0) return <span class="account">No account</span>
  if (session.profiles.length === 1) {
    return <span class="account" title="Account">{session.profiles[0]!.account.name}</span>
  }
  return (
    <label class="account">
      Account{" "}
      <select value={session.accountId} onChange={(event) => onSwitch(event.currentTarget.value)}>
        {session.profiles.map((profile) => (
          <option key={profile.account.id} value={profile.account.id}>
            {profile.account.name} ({profile.role})
          </option>
        ))}
      </select>
    </label>
  )
}

const SignIn = (
  { onSignedIn, theme, toggleTheme, initialError }: {
    readonly onSignedIn: (session: Session) => void
    readonly theme: Theme
    readonly toggleTheme: () => void
    /** Why the key kept in this tab could not sign in again (the server unreachable, …). */
    readonly initialError: unknown
  }
) => {
  const [key, setKey] = useState(() => storedKey() ?? "")
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(initialError)
  return (
    <main class="center">
      <form
        class="card sign-in"
        onSubmit={(event) => {
          event.preventDefault()
          setBusy(true)
          setError(undefined)
          signIn(key.trim()).then(onSignedIn, (failure: unknown) => {
            setError(failure)
            setBusy(false)
          })
        }}
      >
        <h1>Sign in</h1>
        <p>With an API key of this server (the admin CLI's <code>keys create</code>, or <code>PLATFORM_API_KEY</code>). It is kept in this tab only.</p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        {error !== undefined && <ErrorBox error={error} />}
        <div class="row">
          <button type="submit" class="primary" disabled={busy || key.trim() === ""}>{busy ? "Signing in…" : "Sign in"}</button>
          <ThemeToggle theme={theme} toggle={toggleTheme} />
        </div>
      </form>
    </main>
  )
}
