/**
 * Example 4: the typed client without Effect: every operation returns a Promise, errors are
 * classes with the HTTP status and the body's detail.
 *
 *   PLATFORM_BASE_URL=http://127.0.0.1:8080 PLATFORM_API_KEY=pk_... PLATFORM_ACCOUNT_ID=... \
 *     npx tsx examples/promise.ts
 */
import { makePromiseClient, PlatformApiError } from "@platform-kit/client"

// base URL, key and account from PLATFORM_BASE_URL, PLATFORM_API_KEY, PLATFORM_ACCOUNT_ID
const platform = makePromiseClient()
try {
  const group = await platform.modelGroups.create({
    payload: { name: `from-promise-${Date.now()}`, account_id: process.env.PLATFORM_ACCOUNT_ID! }
  })
  const read = await platform.modelGroups.get({ path: { model_group_id: group.id } })
  const missing = await platform.modelGroups.get({ path: { model_group_id: "missing" } }).catch((error: unknown) => error)
  if (!(missing instanceof PlatformApiError)) throw new Error("expected a PlatformApiError")
  console.log(JSON.stringify({ created: read.id, missing: { status: missing.status, tag: missing.tag, detail: missing.detail } }))
} finally {
  await platform.close()
}
