/**
 * Turns an Effect Schema `ParseIssue` tree into the contract's validation items
 * (`{loc, msg, type, input, ctx}`), one per problem, with `loc` prefixed by where the value came
 * from (`body`, `query`, `path` or `header`).
 */
import { ValidationIssue } from "@platform-kit/schema"
import { Option, ParseResult, Schema, SchemaAST as AST } from "effect"

export type Location = "body" | "query" | "path" | "header"

type Loc = ReadonlyArray<string | number>

const literalsOf = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  switch (ast._tag) {
    case "Literal":
      return [ast.literal]
    case "Union": {
      const out: Array<AST.LiteralValue> = []
      for (const member of ast.types) {
        const literals = literalsOf(member)
        if (literals === undefined) return undefined
        out.push(...literals)
      }
      return out
    }
    case "Refinement":
      return literalsOf(ast.from)
    case "Transformation":
      return literalsOf(ast.from)
    default:
      return undefined
  }
}

const isNullish = (ast: AST.AST) =>
  (ast._tag === "Literal" && ast.literal === null) || ast._tag === "UndefinedKeyword" || ast._tag === "VoidKeyword"

/**
 * A value a caller sent, or one it could have, as validation messages name it (docs/decisions.md
 * "Validation errors"): in single quotes as the platform's own (Pydantic's) messages do; `null`,
 * numbers and booleans as they are.
 */
export const quoteValue = (value: AST.LiteralValue): string => (typeof value === "string" ? `'${value}'` : String(value))

/** Choices as Pydantic lists them: `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`. */
export const choices = (values: ReadonlyArray<AST.LiteralValue>): string => {
  const quoted = values.map(quoteValue)
  return quoted.length <= 1 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`
}

/** The type code of a value of the wrong kind, named as Python/TypeScript clients expect. */
const typeCode = (ast: AST.AST): { type: string; msg: string; ctx?: Record<string, unknown> } => {
  const literals = literalsOf(ast)
  if (literals !== undefined && literals.length > 0) {
    const expected = choices(literals)
    return { type: "literal_error", msg: `Input should be ${expected}`, ctx: { expected } }
  }
  switch (ast._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return { type: "string_type", msg: "Input should be a valid string" }
    case "NumberKeyword":
      return { type: "number_type", msg: "Input should be a valid number" }
    case "BooleanKeyword":
      return { type: "bool_type", msg: "Input should be a valid boolean" }
    case "TupleType":
      return { type: "list_type", msg: "Input should be a valid list" }
    case "TypeLiteral":
    case "Declaration":
      return { type: "dict_type", msg: "Input should be a valid object" }
    case "Refinement":
    case "Transformation":
      return typeCode(ast.from)
    case "Suspend":
      return typeCode(ast.f())
    case "Union": {
      // a union of object variants (tagged or not): the value should have been an object
      const codes = ast.types.filter((t) => !isNullish(t)).map((t) => typeCode(t).type)
      if (codes.length > 0 && codes.every((c) => c === codes[0])) return typeCode(ast.types.find((t) => !isNullish(t))!)
      return { type: "value_error", msg: "Input is not valid" }
    }
    default:
      return { type: "value_error", msg: "Input is not valid" }
  }
}

/** The type code of a failed refinement, from the filter's schema id. */
const refinementCode = (
  ast: AST.Refinement,
  fallbackMessage: string
): { type: string; msg: string; ctx?: Record<string, unknown> } => {
  const id = Option.getOrUndefined(AST.getSchemaIdAnnotation(ast))
  const jsonSchema = (Option.getOrUndefined(AST.getJSONSchemaAnnotation(ast)) ?? {}) as Record<string, unknown>
  switch (id) {
    case Schema.IntSchemaId:
      return { type: "int_type", msg: "Input should be a valid integer" }
    case Schema.GreaterThanOrEqualToSchemaId:
      return {
        type: "greater_than_equal",
        msg: `Input should be greater than or equal to ${jsonSchema.minimum}`,
        ctx: { ge: jsonSchema.minimum }
      }
    case Schema.GreaterThanSchemaId:
      return {
        type: "greater_than",
        msg: `Input should be greater than ${jsonSchema.exclusiveMinimum}`,
        ctx: { gt: jsonSchema.exclusiveMinimum }
      }
    case Schema.LessThanOrEqualToSchemaId:
      return {
        type: "less_than_equal",
        msg: `Input should be less than or equal to ${jsonSchema.maximum}`,
        ctx: { le: jsonSchema.maximum }
      }
    case Schema.LessThanSchemaId:
      return {
        type: "less_than",
        msg: `Input should be less than ${jsonSchema.exclusiveMaximum}`,
        ctx: { lt: jsonSchema.exclusiveMaximum }
      }
    case Schema.BetweenSchemaId:
      return {
        type: "range_error",
        msg: `Input should be between ${jsonSchema.minimum} and ${jsonSchema.maximum}`,
        ctx: { ge: jsonSchema.minimum, le: jsonSchema.maximum }
      }
    case Schema.MinItemsSchemaId:
      return { type: "too_short", msg: `List should have at least ${jsonSchema.minItems} items`, ctx: { min_length: jsonSchema.minItems } }
    case Schema.MaxItemsSchemaId:
      return { type: "too_long", msg: `List should have at most ${jsonSchema.maxItems} items`, ctx: { max_length: jsonSchema.maxItems } }
    case Schema.MinLengthSchemaId:
      return jsonSchema.minItems !== undefined
        ? { type: "too_short", msg: `List should have at least ${jsonSchema.minItems} items`, ctx: { min_length: jsonSchema.minItems } }
        : {
          type: "string_too_short",
          msg: `String should have at least ${jsonSchema.minLength} characters`,
          ctx: { min_length: jsonSchema.minLength }
        }
    case Schema.MaxLengthSchemaId:
      return jsonSchema.maxItems !== undefined
        ? { type: "too_long", msg: `List should have at most ${jsonSchema.maxItems} items`, ctx: { max_length: jsonSchema.maxItems } }
        : {
          type: "string_too_long",
          msg: `String should have at most ${jsonSchema.maxLength} characters`,
          ctx: { max_length: jsonSchema.maxLength }
        }
    default:
      return { type: "value_error", msg: fallbackMessage }
  }
}

const messageOf = (issue: ParseResult.ParseIssue): string =>
  ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message ?? "Invalid value"

const collect = (
  issue: ParseResult.ParseIssue,
  loc: Loc,
  parent: unknown,
  out: Array<ValidationIssue>
): void => {
  const push = (code: { type: string; msg: string; ctx?: Record<string, unknown> }, input: unknown): void => {
    out.push(
      new ValidationIssue({
        loc: [...loc],
        msg: code.msg,
        type: code.type,
        input: input === undefined ? null : input,
        ...(code.ctx !== undefined ? { ctx: code.ctx } : {})
      })
    )
  }
  switch (issue._tag) {
    case "Pointer": {
      const path: ReadonlyArray<PropertyKey> = Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey]
      const segments = path.map((p) => (typeof p === "number" ? p : String(p)))
      return collect(issue.issue, [...loc, ...segments], issue.actual, out)
    }
    case "Missing":
      return push({ type: "missing", msg: "Field required" }, parent)
    case "Unexpected":
      return push({ type: "extra_forbidden", msg: "Extra inputs are not permitted" }, issue.actual)
    case "Forbidden":
      return push({ type: "value_error", msg: messageOf(issue) }, issue.actual)
    case "Type": {
      if (issue.message !== undefined) {
        // a filter or transformation that names its own problem
        return push({ ...typeCode(issue.ast), msg: issue.message }, issue.actual)
      }
      return push(typeCode(issue.ast), issue.actual)
    }
    case "Refinement":
      if (issue.kind === "From") return collect(issue.issue, loc, parent, out)
      if (pointsInside(issue.issue)) {
        // a filter that names the field it is about (`{ path, message }`): report it there
        return collectPredicate(issue.issue, loc, out)
      }
      return push(refinementCode(issue.ast, messageOf(issue)), issue.actual)
    case "Transformation":
      if (issue.kind === "Transformation" && issue.issue._tag === "Type") {
        const from = issue.ast.from
        const to = AST.typeAST(issue.ast.to)
        if (from._tag === "StringKeyword" && to._tag === "NumberKeyword") {
          return push({ type: "number_parsing", msg: "Input should be a valid number, unable to parse string as a number" }, issue.actual)
        }
      }
      return collect(issue.issue, loc, parent, out)
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      if (issue.ast._tag === "Union") {
        const literals = literalsOf(issue.ast)
        if (literals !== undefined) return push(typeCode(issue.ast), issue.actual)
        // report the members the value could have been: drop `null` / `undefined` alternatives
        const relevant = issues.filter((i: ParseResult.ParseIssue) => !("ast" in i && isNullish((i as { readonly ast: AST.AST }).ast)))
        // a tagged variant whose members matched (a Pointer into it) is the one the caller meant
        const pointed = relevant.filter((i: ParseResult.ParseIssue) =>
          i._tag === "Composite" || i._tag === "Pointer" || i._tag === "Transformation"
        )
        const chosen = pointed.length > 0 ? pointed.slice(0, 1) : relevant.slice(0, 1)
        if (chosen.length === 0) return push(typeCode(issue.ast), issue.actual)
        for (const i of chosen) collect(i, loc, parent, out)
        return
      }
      for (const i of issues) collect(i, loc, issue.actual, out)
      return
    }
  }
}

const pointsInside = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Pointer" ||
  (issue._tag === "Composite" && (Array.isArray(issue.issues) ? issue.issues : [issue.issues]).some(pointsInside))

/** The issues of a filter that names its fields: each at its path, as a `value_error`. */
const collectPredicate = (issue: ParseResult.ParseIssue, loc: Loc, out: Array<ValidationIssue>): void => {
  if (issue._tag === "Pointer") {
    const path: ReadonlyArray<PropertyKey> = Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey]
    return collectPredicate(issue.issue, [...loc, ...path.map((p) => (typeof p === "number" ? p : String(p)))], out)
  }
  if (issue._tag === "Composite") {
    for (const i of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) collectPredicate(i, loc, out)
    return
  }
  out.push(
    new ValidationIssue({
      loc: [...loc],
      msg: messageOf(issue),
      type: "value_error",
      input: "actual" in issue && issue.actual !== undefined ? issue.actual : null
    })
  )
}

/** Flattens a parse issue into validation items under `location`. */
export const toValidationIssues = (
  location: Location | ReadonlyArray<string>,
  issue: ParseResult.ParseIssue
): Array<ValidationIssue> => {
  const out: Array<ValidationIssue> = []
  collect(issue, typeof location === "string" ? [location] : location, undefined, out)
  return out
}
