/**
 * What the OpenAPI document says beyond what `OpenApi.fromApi` derives: each function takes the
 * derived document and answers it corrected, so that it describes what the server sends.
 */

/** The document describes the 422 body the server answers, not the builder's 400. */
export const dropBuilderDecodeError = (spec: Record<string, any>): Record<string, any> => {
  const ref = "#/components/schemas/HttpApiDecodeError"
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(path)) {
      const content = operation?.responses?.["400"]?.content?.["application/json"]
      if (content === undefined) continue
      if (content.schema?.$ref === ref) {
        delete operation.responses["400"]
      } else if (Array.isArray(content.schema?.anyOf)) {
        const rest = content.schema.anyOf.filter((s: any) => s.$ref !== ref)
        content.schema = rest.length === 1 ? rest[0] : { ...content.schema, anyOf: rest }
      }
    }
  }
  const schemas = spec.components?.schemas ?? {}
  delete schemas.HttpApiDecodeError
  // what only the builder's 400 used (its `issues`), once nothing else refers to it
  for (const name of ["Issue", "PropertyKey"]) {
    const rest = { ...spec, components: { ...spec.components, schemas: { ...schemas, [name]: undefined } } }
    if (!JSON.stringify(rest).includes(`"#/components/schemas/${name}"`)) delete schemas[name]
  }
  return spec
}

/**
 * The error bodies' `_tag` lives on the decoded instance only, never on the wire
 * (packages/schema/src/errors.ts): the document does not list it.
 */
export const dropWireTags = (spec: Record<string, any>): Record<string, any> => {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== "object") return
    const schema = node as Record<string, any>
    const tag = schema.properties?._tag
    if (tag !== undefined && Array.isArray(tag.enum) && tag.enum.length === 1 && !(schema.required ?? []).includes("_tag")) {
      delete schema.properties._tag
    }
    Object.values(schema).forEach(visit)
  }
  visit(spec)
  return spec
}

/** `GET /health` answers 200 only (no key, no body, no account): not the errors of every other operation. */
export const healthWithoutErrors = (spec: Record<string, any>): Record<string, any> => {
  const responses = spec.paths?.["/health"]?.get?.responses
  if (responses !== undefined) {
    for (const status of Object.keys(responses)) if (status !== "200") delete responses[status]
  }
  return spec
}

/**
 * The OpenAI-style front door answers each error with OpenAI's `error` object beside `detail`
 * (`OpenAi*` errors, docs/inference-v5.md "Errors"), in place of the API-wide bodies of the same
 * status (`ValidationError`, `Forbidden`, `PayloadTooLarge`, `InternalServerError`): where a
 * response lists both, only the former is listed.
 */
export const openAiErrorsOnly = (spec: Record<string, any>): Record<string, any> => {
  const ref = "#/components/schemas/OpenAiErrorObject"
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(path)) {
      for (const response of Object.values<Record<string, any>>(operation?.responses ?? {})) {
        const content = response?.content?.["application/json"]
        if (!Array.isArray(content?.schema?.anyOf)) continue
        const openAi = content.schema.anyOf.filter((s: any) => s?.properties?.error?.$ref === ref)
        if (openAi.length === 0) continue
        content.schema = openAi.length === 1 ? openAi[0] : { ...content.schema, anyOf: openAi }
        if (openAi.length === 1 && typeof openAi[0].description === "string") response.description = openAi[0].description
      }
    }
  }
  return spec
}
