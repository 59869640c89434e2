import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL and PLATFORM_API_KEY from the environment
const platform = makePromiseClient()
const me = await platform.users.info()
const { account_id } = await platform.users.createAccount({ payload: { account_name: "Research" } })
const again = await platform.users.get({ path: { user_id: me.id } })
console.log(me.id, account_id, again.access_profiles.map((profile) => `${profile.account.name}: ${profile.role}`))
await platform.close()
