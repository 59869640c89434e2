/**
 * The rows of a training dataset's file (docs/training-datasets.md "The file"), read as its bytes
 * arrive, chunk by chunk: JSON Lines (one object a line) or CSV (a header with `input` and
 * `output`, RFC 4180 quoting). The same reader checks an upload and reads a dataset's contents
 * back; pure (no I/O), so it is tested on its own.
 */

/** How a file's rows are written. */
export type RowFormat = "jsonl" | "csv"

/** A row of a `GENERATION` dataset. */
export interface GenerationRow {
  readonly input: string
  readonly output: string
}

/** A malformed row (or file): the line it starts on (1 is the first), and what is wrong. */
export interface RowProblem {
  readonly line: number
  readonly message: string
}

/** How many problems a reader keeps: the rest are counted, not described. */
export const maxProblems = 10

/**
 * The format a file's name says (`.csv`; `.jsonl`, `.ndjson`, `.json`), none for any other name
 * (the reader then tells by the first character: `{` is JSON Lines, anything else CSV).
 */
export const formatOfName = (name: string): RowFormat | undefined => {
  const lower = name.toLowerCase()
  if (lower.endsWith(".csv")) return "csv"
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson") || lower.endsWith(".json")) return "jsonl"
  return undefined
}

export interface RowReader {
  /** The rows completed by `chunk` (none once a problem stopped the reading of the text). */
  readonly feed: (chunk: Uint8Array) => ReadonlyArray<GenerationRow>
  /** The rows completed by the end of the file. */
  readonly end: () => ReadonlyArray<GenerationRow>
  /** The problems found so far (at most `maxProblems`). */
  readonly problems: () => ReadonlyArray<RowProblem>
  /** How many problems were found past `maxProblems`. */
  readonly moreProblems: () => number
  /** The rows read so far. */
  readonly count: () => number
  /** The format read (told by the first character when not given); none before any text. */
  readonly format: () => RowFormat | undefined
}

const describe = (value: unknown) => value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`

/** What is wrong with the fields of a row (`input`, `output`, `schema_type`), if anything. */
const fieldProblems = (fields: { readonly input: unknown; readonly output: unknown; readonly schema_type: unknown }) => {
  const wrong: Array<string> = []
  for (const name of ["input", "output"] as const) {
    const value = fields[name]
    if (value === undefined) wrong.push(`"${name}" is missing`)
    else if (typeof value !== "string") wrong.push(`"${name}" must be a string, not ${describe(value)}`)
  }
  const schemaType = fields.schema_type
  if (schemaType !== undefined && schemaType !== null && schemaType !== "" && schemaType !== "GENERATION") {
    wrong.push(`"schema_type" must be "GENERATION", not ${JSON.stringify(schemaType)}`)
  }
  return wrong
}

/** A reader of a file's rows; `format` when its name says it. */
export const makeRowReader = (given: RowFormat | undefined): RowReader => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let format = given
  const problems: Array<RowProblem> = []
  let more = 0
  let count = 0
  /** Set once the text cannot be read on (not UTF-8, a NUL byte, a header without its columns). */
  let stopped = false
  /** The line being read (1 is the first). */
  let line = 1

  const problem = (at: number, message: string) => {
    if (problems.length < maxProblems) problems.push({ line: at, message: `Line ${at}: ${message}` })
    else more += 1
  }

  // --- JSON Lines: the text after the last newline, waiting for the rest of its line
  let pending = ""
  const jsonLine = (text: string, at: number, rows: Array<GenerationRow>) => {
    const content = text.endsWith("\r") ? text.slice(0, -1) : text
    if (content.trim() === "") return
    let value: unknown
    try {
      value = JSON.parse(content)
    } catch {
      return problem(at, "not a JSON object (the line does not parse as JSON)")
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return problem(at, `not a JSON object but ${describe(value)}`)
    }
    const record = value as Record<string, unknown>
    const wrong = fieldProblems({ input: record.input, output: record.output, schema_type: record.schema_type })
    if (wrong.length > 0) return problem(at, wrong.join("; "))
    count += 1
    rows.push({ input: record.input as string, output: record.output as string })
  }
  const jsonText = (text: string, rows: Array<GenerationRow>) => {
    pending += text
    let start = 0
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      jsonLine(pending.slice(start, newline), line, rows)
      line += 1
      start = newline + 1
    }
    pending = pending.slice(start)
  }

  // --- CSV: a state machine over the characters; a record may span lines inside quotes
  let header: { readonly input: number; readonly output: number; readonly schemaType: number; readonly width: number } | undefined
  let fields: Array<string> = []
  let field = ""
  /** `start` of a field, `plain` inside an unquoted one, `quoted` inside quotes, `closed` just after a closing quote. */
  let state: "start" | "plain" | "quoted" | "closed" = "start"
  let recordLine = 1
  /** Whether the record so far holds anything (a blank line is skipped). */
  let touched = false

  const csvRecord = (rows: Array<GenerationRow>) => {
    fields.push(field)
    const record = fields
    const at = recordLine
    fields = []
    field = ""
    state = "start"
    const blank = !touched
    touched = false
    if (blank) return
    if (header === undefined) {
      const names = record.map((name) => name.trim())
      const index = (name: string) => names.indexOf(name)
      const missing = ["input", "output"].filter((name) => index(name) === -1)
      const twice = names.filter((name, i) => name !== "" && names.indexOf(name) !== i)
      if (missing.length > 0 || twice.length > 0) {
        stopped = true
        return problem(
          at,
          [
            ...missing.map((name) => `the header has no "${name}" column`),
            ...twice.map((name) => `the header names "${name}" twice`)
          ].join("; ")
        )
      }
      header = { input: index("input"), output: index("output"), schemaType: index("schema_type"), width: names.length }
      return
    }
    if (record.length !== header.width) {
      return problem(at, `${record.length} field${record.length === 1 ? "" : "s"} where the header has ${header.width}`)
    }
    const wrong = fieldProblems({
      input: record[header.input],
      output: record[header.output],
      schema_type: header.schemaType === -1 ? undefined : record[header.schemaType]
    })
    if (wrong.length > 0) return problem(at, wrong.join("; "))
    count += 1
    rows.push({ input: record[header.input]!, output: record[header.output]! })
  }
  const csvText = (text: string, rows: Array<GenerationRow>) => {
    for (const char of text) {
      if (stopped) return
      if (state === "quoted") {
        if (char === "\"") state = "closed"
        else {
          if (char === "\n") line += 1
          field += char
        }
        continue
      }
      if (char === "\r") continue
      if (char === "\n") {
        csvRecord(rows)
        line += 1
        recordLine = line
        continue
      }
      touched = true
      if (char === ",") {
        fields.push(field)
        field = ""
        state = "start"
      } else if (state === "closed") {
        if (char === "\"") {
          // a doubled quote inside quotes
          field += "\""
          state = "quoted"
        } else {
          stopped = true
          return problem(recordLine, `a character after a closing quote: ${JSON.stringify(char)} (a quoted field ends at a comma or a line's end)`)
        }
      } else if (state === "start" && char === "\"") {
        state = "quoted"
      } else {
        field += char
        state = "plain"
      }
    }
  }

  const read = (text: string, rows: Array<GenerationRow>) => {
    const nul = text.indexOf("\0")
    if (nul !== -1) {
      stopped = true
      return problem(line + (text.slice(0, nul).match(/\n/g)?.length ?? 0), "a NUL byte: not a text file")
    }
    if (format === undefined) {
      const first = text.trimStart()
      if (first === "") {
        // still only white space: counted as lines, to be read again once the format is known
        pending += text
        return
      }
      format = first.startsWith("{") ? "jsonl" : "csv"
      text = pending + text
      pending = ""
    }
    if (format === "jsonl") jsonText(text, rows)
    else csvText(text, rows)
  }

  const decode = (chunk: Uint8Array | undefined) => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true })
    } catch {
      stopped = true
      problem(line, "not UTF-8 text")
      return undefined
    }
  }

  const feed = (chunk: Uint8Array): ReadonlyArray<GenerationRow> => {
    if (stopped) return []
    const text = decode(chunk)
    const rows: Array<GenerationRow> = []
    if (text !== undefined && text !== "") read(text, rows)
    return stopped ? [] : rows
  }

  const end = (): ReadonlyArray<GenerationRow> => {
    if (stopped) return []
    const text = decode(undefined)
    const rows: Array<GenerationRow> = []
    if (text !== undefined && text !== "") read(text, rows)
    if (stopped) return []
    if (format === "jsonl") {
      jsonLine(pending, line, rows)
      pending = ""
    } else if (format === "csv") {
      if (state === "quoted") {
        stopped = true
        problem(recordLine, "a quoted field is not closed by the end of the file")
        return []
      }
      csvRecord(rows)
      if (header === undefined && problems.length === 0) problem(1, "the file has no header (\"input\", \"output\")")
    }
    return stopped ? [] : rows
  }

  return {
    feed,
    end,
    problems: () => problems,
    moreProblems: () => more,
    count: () => count,
    format: () => format
  }
}
