/**
 * Every endpoint of the API, read from `PlatformApi` with `HttpApi.reflect`: what the fuzz and the
 * isolation matrix iterate over, so a new endpoint is covered without touching them. The control
 * plane's group (`admin`) is apart (`adminEndpoints`): it has a key of its own and no account's data.
 */
import { HttpApi, HttpApiSchema } from "@effect/platform"
import type { HttpApiEndpoint } from "@effect/platform"
import { PlatformApi } from "@platform-kit/api"
import { Option, Schema, SchemaAST } from "effect"

export interface Endpoint {
  /** `group.name`, e.g. `modelGroups.create`. */
  readonly key: string
  readonly group: string
  readonly name: string
  readonly method: string
  /** As declared, with `:param` segments. */
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly pathSchema: Option.Option<Schema.Schema.Any>
  readonly payload: Option.Option<Schema.Schema.Any>
  readonly urlParams: Option.Option<Schema.Schema.Any>
  readonly headers: Option.Option<Schema.Schema.Any>
  readonly success: Schema.Schema.Any
  /** The status of a success: 200, or 204 (no body) for an endpoint whose success is `Schema.Void`. */
  readonly successStatus: number
  /** Whether the endpoint reads a body (not GET, HEAD, DELETE). */
  readonly hasBody: boolean
  /** Whether its body is a multipart form (`upload_files`), not JSON. */
  readonly form: boolean
  /** Whether a key is required (the group has the `Authentication` middleware). */
  readonly authenticated: boolean
  /** The error statuses the endpoint (its group, the API) declares. */
  readonly errorStatuses: ReadonlySet<number>
  /** Whether it answers a live stream (`text/event-stream`) that ends only when its task does. */
  readonly eventStream: boolean
}

/** Every endpoint of the API, the control plane's included, by whether it is the control plane's. */
const reflected = (() => {
  const out = { account: [] as Array<Endpoint>, admin: [] as Array<Endpoint> }
  HttpApi.reflect(PlatformApi as unknown as HttpApi.HttpApi<string, any, any, any>, {
    onGroup() {},
    onEndpoint({ endpoint, errors, group, middleware }) {
      const e = endpoint as unknown as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
      // the control plane answers to its own key, not an account's: control-plane-fuzz.test.ts
      out[group.identifier === "admin" ? "admin" : "account"].push({
        key: `${group.identifier}.${e.name}`,
        group: group.identifier,
        name: e.name,
        method: e.method,
        path: e.path,
        pathParams: [...e.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!),
        pathSchema: e.pathSchema,
        payload: e.payloadSchema,
        urlParams: e.urlParamsSchema,
        headers: e.headersSchema,
        success: e.successSchema,
        successStatus: HttpApiSchema.getStatusSuccess(e.successSchema),
        hasBody: e.method !== "GET" && e.method !== "HEAD" && e.method !== "DELETE" && e.method !== "OPTIONS",
        form: Option.match(e.payloadSchema, {
          onNone: () => false,
          onSome: (schema) =>
            HttpApiSchema.getMultipart(schema.ast) !== undefined || HttpApiSchema.getMultipartStream(schema.ast) !== undefined
        }),
        authenticated: middleware.size > 0,
        errorStatuses: new Set(errors.keys()),
        eventStream: HttpApiSchema.getEncoding(e.successSchema.ast).contentType === "text/event-stream"
      })
    }
  })
  return out
})()

/**
 * The endpoints an account's key opens, but the live streams (a task's stream answers until the
 * task ends: agent-tasks-stream.test.ts checks them, their isolation included).
 */
export const endpoints: ReadonlyArray<Endpoint> = reflected.account.filter((endpoint) => !endpoint.eventStream)

/** The control plane's endpoints (`x-admin-key`). */
export const adminEndpoints: ReadonlyArray<Endpoint> = reflected.admin

/** The path with every `:param` replaced by the given (already encoded) segment. */
export const fillPath = (path: string, segments: Readonly<Record<string, string>>): string =>
  path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const segment = segments[name]
    if (segment === undefined) throw new Error(`no value for path parameter ${name} of ${path}`)
    return segment
  })

/** The path with every `:param` replaced by `values[param]`, URI-encoded. */
export const pathWith = (path: string, values: Readonly<Record<string, string>>): string =>
  fillPath(path, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)])))

/** The top-level field names of a Struct Schema (a query, a body), none without one. */
export const schemaKeys = (schema: Option.Option<Schema.Schema.Any>): ReadonlyArray<string> =>
  Option.match(schema, {
    onNone: () => [],
    onSome: (s) => {
      const ast = Schema.encodedSchema(s as Schema.Schema<unknown, unknown, never>).ast
      const literal = ast._tag === "Refinement" ? ast.from : ast
      return literal._tag === "TypeLiteral" ? literal.propertySignatures.map((p) => String(p.name)) : []
    }
  })

/** The names of `endpoint`'s query parameters. */
export const queryKeys = (endpoint: Endpoint): ReadonlyArray<string> => schemaKeys(endpoint.urlParams)

/** Every field name anywhere in a Schema's encoded form (nested structs, arrays, unions), for fixtures that fill fields by name. */
export const fieldNames = (schema: Option.Option<Schema.Schema.Any>): ReadonlySet<string> => {
  const names = new Set<string>()
  const seen = new Set<SchemaAST.AST>()
  const walk = (ast: SchemaAST.AST): void => {
    if (seen.has(ast)) return
    seen.add(ast)
    switch (ast._tag) {
      case "TypeLiteral":
        for (const property of ast.propertySignatures) {
          names.add(String(property.name))
          walk(property.type)
        }
        for (const index of ast.indexSignatures) walk(index.type)
        return
      case "Union":
        return ast.types.forEach(walk)
      case "TupleType":
        ast.elements.forEach((element) => walk(element.type))
        return ast.rest.forEach((rest) => walk(rest.type))
      case "Refinement":
        return walk(ast.from)
      case "Transformation":
        return walk(ast.from)
      case "Suspend":
        return walk(ast.f())
    }
  }
  if (Option.isSome(schema)) walk(Schema.encodedSchema(schema.value as Schema.Schema<unknown, unknown, never>).ast)
  return names
}
