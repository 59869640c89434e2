/**
 * The text of a file, by its name's extension (docs/knowledge-bases.md "File types"): `.txt`,
 * `.md`, `.csv` as they are; `.json` as it is once it parses; `.html` / `.htm` without scripts,
 * styles, comments and tags, entities decoded, whitespace collapsed. A file that is not UTF-8
 * text (invalid UTF-8, or a NUL byte: a binary file) or of another type is refused with a reason.
 */
import { Either } from "effect"

/** The extensions read, lower-case. */
export const textExtensions = [".txt", ".md", ".markdown", ".csv", ".json", ".html", ".htm"] as const

const extensionOf = (name: string) => {
  const base = name.slice(name.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot).toLowerCase()
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " }

/**
 * `html` without each section from a match of `open` to the next match of `close` after it (an
 * unclosed one runs to the end). Each search goes forward from where the last ended: linear in
 * the text, whatever it holds (a lazy `[\s\S]*?` rescans the rest for every unclosed opener).
 */
const withoutSections = (html: string, open: RegExp, close: (opened: RegExpExecArray) => RegExp): string => {
  const kept: Array<string> = []
  let from = 0
  for (;;) {
    open.lastIndex = from
    const opened = open.exec(html)
    if (opened === null) break
    kept.push(html.slice(from, opened.index), " ")
    const closing = close(opened)
    closing.lastIndex = opened.index + opened[0].length
    const closed = closing.exec(html)
    if (closed === null) return kept.join("")
    from = closed.index + closed[0].length
  }
  kept.push(html.slice(from))
  return kept.join("")
}

/** The character of a numeric entity, or the entity as written when it names none. */
const codePoint = (whole: string, value: number) =>
  Number.isInteger(value) && value > 0 && value <= 0x10ffff && (value < 0xd800 || value > 0xdfff) ? String.fromCodePoint(value) : whole

/** The visible text of an HTML document. */
export const htmlText = (html: string): string =>
  withoutSections(
    withoutSections(html, /<!--/g, () => /-->/g),
    /<(script|style|noscript|template)\b/gi,
    (opened) => new RegExp(`<\\/${opened[1]}\\s*>`, "gi")
  )
    .replace(/<\/?(p|div|br|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|blockquote|pre)\b[^<>]*>/gi, "\n")
    .replace(/<[^<>]*>/g, " ")
    .replace(/&(#x[0-9a-f]{1,8}|#[0-9]{1,10}|[a-z]{1,10});/gi, (whole, name: string) => {
      if (name.startsWith("#x") || name.startsWith("#X")) return codePoint(whole, parseInt(name.slice(2), 16))
      if (name.startsWith("#")) return codePoint(whole, parseInt(name.slice(1), 10))
      return entities[name.toLowerCase()] ?? whole
    })
    .split("\n")
    .map((line) => line.replace(/[ \t\r\f\v]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n\n")

/** The text of file `name` with content `bytes`, or why it is not read. */
export const extractText = (name: string, bytes: Uint8Array): Either.Either<string, string> => {
  const extension = extensionOf(name)
  if (!(textExtensions as ReadonlyArray<string>).includes(extension)) {
    return Either.left(`Not a text file type this kit reads (${textExtensions.join(", ")}): ${name}`)
  }
  if (bytes.includes(0)) return Either.left(`A binary file, not text: ${name}`)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return Either.left(`Not UTF-8 text: ${name}`)
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (extension === ".json") {
    try {
      JSON.parse(text)
    } catch {
      return Either.left(`Not valid JSON: ${name}`)
    }
    return Either.right(text)
  }
  return Either.right(extension === ".html" || extension === ".htm" ? htmlText(text) : text)
}
