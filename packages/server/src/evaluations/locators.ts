/**
 * Item locators (docs/evaluations.md "Item locators"): how a task's configuration reads an item.
 * `item.question` (a configuration value that is exactly a locator) is the whole value at that path
 * of the item's data; `{{item.question}}` inside a text is replaced by that value (as text: a
 * string as it is, anything else as JSON). Path segments are field names or array positions
 * (`item.turns.0.content`); the results of the tasks before (their aliases) are fields too.
 */
import { Either, Option } from "effect"

const wholeLocator = /^item((?:\.[^.\s{}]+)+)$/
const embeddedLocator = /\{\{\s*item((?:\.[^.\s{}]+)+)\s*\}\}/g

/** Whether `value` is a locator of a whole value. */
export const isLocator = (value: unknown): value is string => typeof value === "string" && wholeLocator.test(value)

/**
 * The value at the dotted `path` (`a.b`, `turns.0`) of `value`, through its own fields only
 * (nothing inherited: `constructor` is not a field); none when a segment is not there. Item
 * locators read data with it, and so do dashboard widgets' columns.
 */
export const valueAt = (value: unknown, path: string): Option.Option<unknown> => {
  let current = value
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, segment)) return Option.none()
    current = (current as Record<string, unknown>)[segment]
  }
  return Option.some(current)
}

/** The value at `path` (`.a.b`) of `data`, or why there is none. */
const at = (data: unknown, path: string): Either.Either<unknown, string> =>
  Option.match(valueAt(data, path.slice(1)), {
    onNone: () => Either.left(`item${path} is not in the item's data`),
    onSome: Either.right
  })

/** The value a whole locator names. */
export const locate = (locator: string, data: unknown): Either.Either<unknown, string> => {
  const match = wholeLocator.exec(locator)
  return match === null ? Either.left(`${locator} is not an item locator (item.<field>)`) : at(data, match[1]!)
}

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** `text` with each `{{item.…}}` replaced by the value it names. */
export const fill = (text: string, data: unknown): Either.Either<string, string> => {
  let missing: string | undefined
  const filled = text.replace(embeddedLocator, (_, path: string) => {
    const found = at(data, path)
    if (Either.isLeft(found)) {
      missing ??= found.left
      return ""
    }
    return asText(found.right)
  })
  return missing === undefined ? Either.right(filled) : Either.left(missing)
}

/**
 * `value` with the item's values put in: a whole locator replaced by what it names, `{{item.…}}`
 * filled in every text, through arrays and objects.
 */
export const resolve = (value: unknown, data: unknown): Either.Either<unknown, string> => {
  if (isLocator(value)) return locate(value, data)
  if (typeof value === "string") return fill(value, data)
  if (Array.isArray(value)) {
    const out: Array<unknown> = []
    for (const element of value) {
      const resolved = resolve(element, data)
      if (Either.isLeft(resolved)) return resolved
      out.push(resolved.right)
    }
    return Either.right(out)
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, element] of Object.entries(value)) {
      const resolved = resolve(element, data)
      if (Either.isLeft(resolved)) return resolved
      out[key] = resolved.right
    }
    return Either.right(out)
  }
  return Either.right(value)
}

export { asText }
