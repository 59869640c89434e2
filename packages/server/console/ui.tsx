/**
 * The console's small pieces: a loader hook and the three states every page shows while it is not
 * showing data (loading, empty, an error with the API's `detail`).
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import { describeError } from "./session.js"

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly error: unknown }
  | { readonly state: "done"; readonly value: A }

/** Runs `load` when a dependency changes; an answer that arrives after a newer load started is dropped. */
export const useLoad = <A,>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [loaded, setLoaded] = useState<Loaded<A>>({ state: "loading" })
  useEffect(() => {
    let current = true
    setLoaded({ state: "loading" })
    load().then(
      (value) => current && setLoaded({ state: "done", value }),
      (error: unknown) => current && setLoaded({ state: "failed", error })
    )
    return () => {
      current = false
    }
  }, deps)
  return loaded
}

/**
 * `useLoad` that loads again while `pending(value)` (something is still changing on the server:
 * a deployment `PENDING`), after 1 s, then twice as long each time up to 10 s; never while the
 * tab is hidden (it loads once it is shown again). The last value stays on screen meanwhile.
 */
export const usePolled = <A,>(
  load: () => Promise<A>,
  deps: ReadonlyArray<unknown>,
  pending: (value: A) => boolean,
  /** The first wait (1 s by default): shorter for work that is usually done in a moment (an ingestion). */
  first = 1_000
): Loaded<A> => {
  const [loaded, setLoaded] = useState<Loaded<A>>({ state: "loading" })
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    // due while the tab was hidden: loaded when it is shown
    let due = false
    let delay = first
    const run = () => {
      timer = undefined
      load().then((value) => {
        if (stopped) return
        setLoaded({ state: "done", value })
        if (pending(value)) schedule()
      }, (error: unknown) => !stopped && setLoaded({ state: "failed", error }))
    }
    const schedule = () => {
      timer = setTimeout(() => {
        if (document.hidden) due = true
        else run()
      }, delay)
      delay = Math.min(delay * 2, 10_000)
    }
    const onVisibility = () => {
      if (document.hidden || !due) return
      due = false
      run()
    }
    setLoaded({ state: "loading" })
    run()
    document.addEventListener("visibilitychange", onVisibility)
    return () => {
      stopped = true
      if (timer !== undefined) clearTimeout(timer)
      document.removeEventListener("visibilitychange", onVisibility)
    }
  }, deps)
  return loaded
}

export const Loading = ({ what }: { readonly what: string }) => (
  <p class="state" role="status" aria-live="polite">Loading {what}…</p>
)

export const Empty = ({ children }: { readonly children: ComponentChildren }) => <p class="state empty">{children}</p>

export const ErrorBox = ({ error }: { readonly error: unknown }) => (
  <div class="error" role="alert">
    <strong>Error</strong>
    <pre>{describeError(error)}</pre>
  </div>
)

/** One of the three states, or `children(value)` once loaded. */
export const Show = <A,>(
  { loaded, what, children }: { readonly loaded: Loaded<A>; readonly what: string; readonly children: (value: A) => ComponentChildren }
) =>
  loaded.state === "loading"
    ? <Loading what={what} />
    : loaded.state === "failed"
    ? <ErrorBox error={loaded.error} />
    : <>{children(loaded.value)}</>

/** Previous and next of a paged list (`page` from 1), with the count; nothing to page: the count alone. */
export const Pager = (
  { page, pageSize, total, onPage }: {
    readonly page: number
    readonly pageSize: number
    readonly total: number
    readonly onPage: (page: number) => void
  }
) => {
  const pages = Math.max(1, Math.ceil(total / pageSize))
  if (pages === 1) return <p class="muted">{total} in all</p>
  return (
    <nav class="row" aria-label="Pages of the list">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>Page {page} of {pages} ({total} in all)</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  )
}

/** A date as the reader's locale shows it. */
export const when = (date: Date | string | null | undefined) =>
  date === null || date === undefined ? "—" : new Date(date).toLocaleString()
