import { FetchHttpClient } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { PlatformClient, PlatformClientConfig } from "@platform-kit/client"
import { Console, Effect, Layer } from "effect"

const program = Effect.gen(function*() {
  const platform = yield* PlatformClient
  const account_id = (yield* PlatformClientConfig).accountId!
  const form = new FormData()
  form.append("file", new Blob(["Quarterly notes\n"], { type: "text/plain" }), "notes.txt")
  const file = yield* platform.files.create({ urlParams: { account_id }, payload: form })
  const tagged = yield* platform.files.update({ path: { file_id: file.id }, payload: { tags: { team: "research" } } })
  const page = yield* platform.files.list({ urlParams: { account_id, filename: "NOTES" } })
  const bytes = yield* platform.files.content({ path: { file_id: file.id } })
  const deleted = yield* platform.files.delete({ path: { file_id: file.id } })
  yield* Console.log(file.md5_checksum, tagged.tags, page.items.some((item) => item.id === file.id), new TextDecoder().decode(bytes), deleted.deleted)
})

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const ClientLive = PlatformClient.Default.pipe(
  Layer.provideMerge(PlatformClientConfig.fromEnv),
  Layer.provide(FetchHttpClient.layer)
)

NodeRuntime.runMain(program.pipe(Effect.provide(ClientLive)))
