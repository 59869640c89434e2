/**
 * The `Idempotency-Key` request header every POST accepts (docs/idempotency.md). The server reads
 * it in one middleware, not per endpoint, so the OpenAPI document gets it added here.
 */

export const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes the POST safe to retry: a retry with the same key and request answers the first response " +
    "again (with `idempotent-replayed: true`); the same key with another request is a 422; keys are " +
    "scoped to the caller's identity and expire after 24 h.",
  schema: { type: "string", minLength: 1, maxLength: 255 }
} as const

/** Adds the header to every POST operation of an OpenAPI document. */
export const documentIdempotencyKey = (spec: Record<string, any>): Record<string, any> => {
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    const post = path.post
    if (post === undefined) continue
    post.parameters = [...(post.parameters ?? []), idempotencyKeyParameter]
  }
  return spec
}
