import { makePromiseClient } from "@platform-kit/client"
import { Redacted } from "effect"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const credential = await platform.credentials.create({
  payload: { name: "github-token", type: "key", payload: Redacted.make("ghp_example"), description: "CI token" }
})
const byName = await platform.credentials.getByName({ path: { credential_name: "github-token" }, urlParams: {} })
const secret = await platform.credentials.secret({ path: { credential_id: credential.id } })
await platform.credentials.update({ path: { credential_id: credential.id }, payload: { payload: Redacted.make("ghp_rotated") } })
const rotated = await platform.credentials.secretByName({ path: { credential_name: "github-token" }, urlParams: {} })
await platform.credentials.delete({ path: { credential_id: credential.id } })
console.log(byName.description, Redacted.value(secret.result), Redacted.value(rotated.result))
await platform.close()
