/**
 * Paths under `/console` (the server answers every one of them with the application): the
 * History API, so that each page has its own address, reloads and the back button work.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"

export const base = "/console"

const listeners = new Set<() => void>()

/** Opens `path` (under `/console`); `replace`: instead of the current entry of the history (a redirect). */
export const navigate = (path: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) history.replaceState(null, "", `${base}${path}`)
  else history.pushState(null, "", `${base}${path}`)
  listeners.forEach((listener) => listener())
}

/** The path after `/console` (`/models/abc`), following navigation. */
export const useRoute = (): string => {
  const read = () => location.pathname.slice(base.length) || "/"
  const [path, setPath] = useState(read)
  useEffect(() => {
    const update = () => setPath(read())
    listeners.add(update)
    addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      removeEventListener("popstate", update)
    }
  }, [])
  return path
}

/** A link inside the console: a real `<a href>` (keyboard, new tab), followed without a reload. */
export const Link = (
  { to, children, current, label }: {
    readonly to: string
    readonly children: ComponentChildren
    readonly current?: boolean
    /** The link's name when its text alone does not say where it goes (several alike on a page). */
    readonly label?: string
  }
) => (
  <a
    href={`${base}${to}`}
    aria-label={label}
    aria-current={current ? "page" : undefined}
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(to)
    }}
  >
    {children}
  </a>
)
