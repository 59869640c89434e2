/**
 * Mustache templates, the part a prompt needs (docs/applications.md "Processing"): variables
 * `{{name}}` and `{{a.b}}` (`{{{name}}}` and `{{& name}}` alike: prompts are not HTML, nothing is
 * escaped), sections `{{#name}}…{{/name}}` (once per item of an array, once for any other truthy
 * value, with it as the context), inverted sections `{{^name}}…{{/name}}`, `{{.}}` for the item
 * itself, and comments `{{! … }}`. An object or array in a variable renders as its JSON.
 */

type Context = ReadonlyArray<unknown>

const lookup = (contexts: Context, name: string): unknown => {
  if (name === ".") return contexts[contexts.length - 1]
  const [head, ...rest] = name.split(".")
  for (let i = contexts.length - 1; i >= 0; i--) {
    const context = contexts[i]
    if (context !== null && typeof context === "object" && head! in context) {
      return rest.reduce<unknown>(
        (value, key) => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined),
        (context as Record<string, unknown>)[head!]
      )
    }
  }
  return undefined
}

const text = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)

const truthy = (value: unknown) => !(value === undefined || value === null || value === false || value === "" || (Array.isArray(value) && value.length === 0))

const tag = /\{\{(\{?)\s*([#^/!&]?)\s*([^}]*?)\s*\}?\}\}/g

/** The template's text with `view`'s values; a section left open or closed twice is an error (thrown). */
export const render = (template: string, view: Record<string, unknown>): string => {
  const go = (source: string, contexts: Context): string => {
    let out = ""
    let at = 0
    tag.lastIndex = 0
    const tags = [...source.matchAll(tag)]
    for (let i = 0; i < tags.length; i++) {
      const match = tags[i]!
      if (match.index! < at) continue
      out += source.slice(at, match.index)
      at = match.index! + match[0].length
      const [, , kind, name] = match
      if (kind === "!") continue
      if (kind === "#" || kind === "^") {
        // the matching close, counting sections of the same name opened inside
        let depth = 1
        let j = i + 1
        for (; j < tags.length; j++) {
          const [, , k, n] = tags[j]!
          if ((k === "#" || k === "^") && n === name) depth++
          if (k === "/" && n === name && --depth === 0) break
        }
        if (j === tags.length) throw new Error(`section {{${kind}${name}}} is not closed`)
        const inner = source.slice(at, tags[j]!.index)
        const value = lookup(contexts, name!)
        if (kind === "^") out += truthy(value) ? "" : go(inner, contexts)
        else if (Array.isArray(value)) out += value.map((item) => go(inner, [...contexts, item])).join("")
        else if (truthy(value)) out += go(inner, [...contexts, value])
        at = tags[j]!.index! + tags[j]![0].length
        i = j
        continue
      }
      if (kind === "/") throw new Error(`{{/${name}}} closes no section`)
      out += text(lookup(contexts, name!))
    }
    return out + source.slice(at)
  }
  return go(template, [view])
}
