/**
 * A widget's result computed from evaluation items (docs/evaluation-dashboards.md "Computing"):
 * the query's `select` read from each item (`source` `item`: the item's own fields; `evaluation`:
 * its evaluation's; anything else: its `data`, where the tasks' results are), grouped by `groupBy`
 * with the aggregates of the select, ordered by `orderBy`, cut at `limit`, shaped for the widget's
 * type. Pure: the caller reads the items.
 */
import type { EvaluationDashboardWidgetQuery } from "@platform-kit/schema"
import { Option } from "effect"
import { valueAt } from "../evaluations/locators.js"

/** An item as the computation reads it, with the evaluation it belongs to. */
export interface ItemRow {
  readonly item: {
    readonly id: string
    readonly evaluation_id: string
    readonly created_at: string
    readonly dataset_item_id: string | null
    readonly data: Readonly<Record<string, unknown>>
  }
  readonly evaluation: { readonly id: string; readonly name: string; readonly status: string }
}

type Expression = EvaluationDashboardWidgetQuery["select"][number]["expression"]

/** The value at the dotted `path` of `value` (own fields only, `valueAt`), or null. */
const at = (value: unknown, path: string): unknown => Option.getOrNull(valueAt(value, path)) ?? null

/** The fields of an item and of an evaluation a column reads (nothing else of what is stored). */
const itemFields = new Set(["id", "evaluation_id", "created_at", "dataset_item_id"])
const evaluationFields = new Set(["id", "name", "status"])

/** A column of a row, read from its source. */
const columnOf = (row: ItemRow, column: string, source: string): unknown => {
  if (source === "item") return itemFields.has(column) ? at(row.item, column) : at(row.item.data, column)
  if (source === "evaluation") return evaluationFields.has(column) ? at(row.evaluation, column) : null
  return at(row.item.data, column)
}

const numbers = (values: ReadonlyArray<unknown>) => values.filter((v): v is number => typeof v === "number" && Number.isFinite(v))

/** An expression over the rows of a group: a column (its first row's value) or an aggregate. */
const evaluate = (expression: Expression, rows: ReadonlyArray<ItemRow>): unknown => {
  if (expression.type === "COLUMN") return rows.length === 0 ? null : columnOf(rows[0]!, expression.column, expression.source)
  const column = expression.column
  const values = column == null ? [] : rows.map((row) => columnOf(row, column, expression.source ?? "data"))
  switch (expression.function) {
    case "COUNT":
      return column == null ? rows.length : values.filter((v) => v !== null).length
    case "SUM":
      return numbers(values).reduce((a, b) => a + b, 0)
    case "AVG": {
      const found = numbers(values)
      return found.length === 0 ? null : found.reduce((a, b) => a + b, 0) / found.length
    }
    case "MIN": {
      const found = numbers(values)
      return found.length === 0 ? null : found.reduce((a, b) => (b < a ? b : a))
    }
    case "MAX": {
      const found = numbers(values)
      return found.length === 0 ? null : found.reduce((a, b) => (b > a ? b : a))
    }
  }
}

/** Two values that are not null: numbers by value, anything else by its text. */
const compare = (a: unknown, b: unknown) => {
  if (typeof a === "number" && typeof b === "number") return a - b
  const x = typeof a === "string" ? a : JSON.stringify(a)
  const y = typeof b === "string" ? b : JSON.stringify(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** The records of a query over `rows`: one per group (or per row, without aggregates), alias → value. */
export const records = (query: EvaluationDashboardWidgetQuery, rows: ReadonlyArray<ItemRow>) => {
  const aggregated = query.select.some((select) => select.expression.type === "AGGREGATE")
  /** A name of `groupBy` or `orderBy`: a select's alias, else a column of the items' data. */
  const named = (name: string, source = "data"): Expression =>
    query.select.find((select) => select.alias === name)?.expression ?? { column: name, type: "COLUMN", source }
  let groups: Array<ReadonlyArray<ItemRow>>
  if (query.groupBy.length > 0) {
    const byKey = new Map<string, Array<ItemRow>>()
    for (const row of rows) {
      const key = JSON.stringify(query.groupBy.map((name) => evaluate(named(name), [row])))
      const group = byKey.get(key)
      if (group === undefined) byKey.set(key, [row])
      else group.push(row)
    }
    groups = [...byKey.values()]
  } else {
    groups = aggregated ? [rows] : rows.map((row) => [row])
  }
  const made = groups.map((group) => ({
    group,
    record: Object.fromEntries(query.select.map((select) => [select.alias, evaluate(select.expression, group)]))
  }))
  if (query.orderBy.length > 0) {
    made.sort((a, b) => {
      for (const order of query.orderBy) {
        const alias = query.select.find((select) => select.alias === order.column)?.alias
        const x = alias !== undefined ? a.record[alias] : evaluate(named(order.column, order.source), a.group)
        const y = alias !== undefined ? b.record[alias] : evaluate(named(order.column, order.source), b.group)
        // nulls last in either direction
        const xNull = x === null || x === undefined
        const yNull = y === null || y === undefined
        if (xNull || yNull) {
          if (xNull !== yNull) return xNull ? 1 : -1
          continue
        }
        const c = compare(x, y)
        if (c !== 0) return order.direction === "DESC" ? -c : c
      }
      return 0
    })
  }
  const limited = query.limit === null ? made : made.slice(0, query.limit)
  return limited.map((entry) => entry.record)
}

/**
 * The `computed_result` of a widget of `type`: `metric` the first selected value of the first
 * record; `table` the records; `markdown` and `heading` nothing (null); every chart type a series
 * `[{x, y}]`, x the first selected value and y the second (one select: x its alias, y its value).
 */
export const computeWidget = (
  type: string,
  query: EvaluationDashboardWidgetQuery,
  rows: ReadonlyArray<ItemRow>
): Readonly<Record<string, unknown>> | null => {
  if (type === "markdown" || type === "heading") return null
  const made = records(query, rows)
  const [first, second] = query.select
  if (type === "metric") return { type: "metric", data: made.length === 0 ? null : made[0]![first!.alias] ?? null }
  if (type === "table") return { type: "table", data: made }
  return {
    type: "series",
    data: made.map((record) =>
      second === undefined
        ? { x: first!.alias, y: record[first!.alias] ?? null }
        : { x: record[first!.alias] ?? null, y: record[second.alias] ?? null }
    )
  }
}
