import { makePromiseClient } from "@platform-kit/client"

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const account_id = process.env.PLATFORM_ACCOUNT_ID!
const form = new FormData()
form.append("file", new Blob(["Quarterly notes\n"], { type: "text/plain" }), "notes.txt")
const file = await platform.files.create({ urlParams: { account_id }, payload: form })
const tagged = await platform.files.update({ path: { file_id: file.id }, payload: { tags: { team: "research" } } })
const page = await platform.files.list({ urlParams: { account_id, filename: "NOTES" } })
const bytes = await platform.files.content({ path: { file_id: file.id } })
const deleted = await platform.files.delete({ path: { file_id: file.id } })
console.log(file.md5_checksum, tagged.tags, page.items.some((item) => item.id === file.id), new TextDecoder().decode(bytes), deleted.deleted)
await platform.close()
