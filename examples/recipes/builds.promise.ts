import { makePromiseClient } from "@platform-kit/client"
import { gzipSync } from "node:zlib"

/** A tar.gz of `files` (name → text): one 512-byte ustar header per file, its bytes padded to 512. */
const tarGz = (files: Record<string, string>) =>
  gzipSync(Buffer.concat([
    ...Object.entries(files).flatMap(([name, text]) => {
      const bytes = Buffer.from(text)
      const header = Buffer.alloc(512)
      header.write(name, 0)
      header.write("0000644\0", 100)
      header.write(`${bytes.length.toString(8).padStart(11, "0")}\0`, 124)
      header.write("        ", 148)
      header.write("0", 156)
      header.write("ustar\u000000", 257)
      header.write(`${header.reduce((sum, byte) => sum + byte, 0).toString(8).padStart(6, "0")}\0 `, 148)
      return [header, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]
    }),
    Buffer.alloc(1024)
  ]))

// PLATFORM_BASE_URL, PLATFORM_API_KEY and PLATFORM_ACCOUNT_ID from the environment
const platform = makePromiseClient()
const form = new FormData()
const context = tarGz({ Dockerfile: "FROM node:20-slim\nCOPY index.js /app/\nCMD [\"node\", \"/app/index.js\"]\n", "index.js": "console.log('hi')\n" })
form.append("context_archive", new Blob([context], { type: "application/gzip" }), "context.tar.gz")
form.append("image_name", "team/hello")
form.append("image_tag", "v1")
let build = await platform.builds.create({ urlParams: {}, payload: form })
while (build.status === "queued" || build.status === "running") {
  await new Promise((resolve) => setTimeout(resolve, 500))
  build = await platform.builds.get({ path: { build_id: build.build_id } })
}
// the log, a server-sent event per line; the body ends with the build
const log = await platform.builds.logs({ path: { build_id: build.build_id } })
const lines = log.split("\n\n").filter((frame) => frame !== "").map((frame) => JSON.parse(frame.slice("data: ".length)).line)
const page = await platform.builds.list({ urlParams: { limit: 10 } })
console.log(build.status, build.image_url, lines.at(-1), page.items.some((each) => each.id === build.build_id))
await platform.close()
