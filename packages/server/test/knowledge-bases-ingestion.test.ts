/**
 * Knowledge bases that ingest (docs/knowledge-bases.md "Uploads"): a folder of the object store
 * read through a data source (or a config), each file an artifact chunked and embedded on the
 * engine; files changed, unchanged and removed; files that cannot be read; chunks given in the
 * body; cancel; the states a poller sees.
 */
import { assert, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { eventually, provision, request } from "../src/testing.js"
import { serverWith } from "./support/progression.js"
import { missingBucket, testObjectStore } from "./support/s3.js"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kb-ingestion-"))
const write = (bucket: string, name: string, content: string | Uint8Array) => {
  const file = Path.join(root, bucket, name)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, content)
}

type Caller = { readonly key: string; readonly accountId: string }

const call = (caller: Caller, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
  Effect.map(request(method, path, { key: caller.key, ...(body === undefined ? {} : { body }) }), (response) => {
    assert.isBelow(response.status, 500, JSON.stringify(response.body))
    return response
  })

const ok = (caller: Caller, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
  Effect.map(call(caller, method, path, body), (response) => {
    assert.strictEqual(response.status, 200, `${method} ${path}: ${JSON.stringify(response.body)}`)
    return response.body
  })

/** A caller with a knowledge base (built-in embeddings) and a data source over `bucket`. */
const setup = (bucket: string) =>
  Effect.gen(function*() {
    const caller = yield* provision()
    const kb = yield* ok(caller, "POST", "/v4/knowledge-bases", { knowledge_base_name: "docs", embedding_config: { type: "base" } })
    const source = yield* ok(caller, "POST", "/v4/knowledge-base-data-sources", {
      name: bucket,
      data_source_config: { source: "OBJECT_STORE", object_store_bucket: bucket, cloud_region: "local", cloud_account_id: "local" }
    })
    return { caller, kb: kb.knowledge_base_id as string, source: source.id as string, base: `/v4/knowledge-bases/${kb.knowledge_base_id}` }
  })

/**
 * Polls upload `id` until it is no longer `Running`; answers every distinct (status, counts) a
 * poller saw, in order, and the upload at its end (with its artifacts).
 */
const pollToEnd = (caller: Caller, base: string, id: string) =>
  Effect.gen(function*() {
    const seen: Array<{ status: string; counts: Record<string, number> }> = []
    const end = yield* eventually(
      Effect.map(ok(caller, "GET", `${base}/uploads/${id}?include_artifact_list=true`), (upload) => {
        const state = { status: upload.status, counts: upload.artifacts_status }
        if (seen.length === 0 || JSON.stringify(seen.at(-1)) !== JSON.stringify(state)) seen.push(state)
        return upload.status === "Running" ? Option.none() : Option.some(upload)
      }),
      60_000
    )
    assert.isTrue(Option.isSome(end), `upload ${id} still running: ${JSON.stringify(seen.at(-1))}`)
    return { seen, upload: Option.getOrThrow(end) }
  })

const upload = (caller: Caller, base: string, body: unknown) =>
  Effect.gen(function*() {
    const created = yield* ok(caller, "POST", `${base}/uploads`, body)
    return yield* pollToEnd(caller, base, created.upload_id)
  })

const chunksOf = (caller: Caller, base: string, artifactId: string) =>
  Effect.map(ok(caller, "GET", `${base}/artifacts/${artifactId}`), (artifact) => artifact.chunks.map((chunk: any) => chunk.text))

/** An upload's artifacts by name, in name order (the API lists them by creation, ties in id order). */
const byName = (artifacts: ReadonlyArray<any>) =>
  Object.fromEntries(
    [...artifacts].sort((a, b) => a.artifact_name < b.artifact_name ? -1 : 1).map((artifact) => [artifact.artifact_name, artifact])
  )

const ServerLive = serverWith({ PLATFORM_OBJECT_STORE_ROOT: root, PLATFORM_OBJECT_MAX_BYTES: "4096" })

layer(ServerLive, { timeout: 120_000 })("knowledge bases: ingestion", (it) => {
  it.effect("a folder through a data source: Completed, one artifact per file, chunks exactly as the character strategy cuts them", () =>
    Effect.gen(function*() {
      write("small", "notes.txt", "aa\n\nbb\n\ncc\n\ndd")
      write("small", "sub/more.md", "ee\n\nff")
      const { base, caller, source } = yield* setup("small")
      const { seen, upload: done } = yield* upload(caller, base, {
        data_source_id: source,
        chunking_strategy_config: { strategy: "character", chunk_size: 6, chunk_overlap: 2 }
      })
      // what a poller sees: Running (maybe), then Completed; counts that add up to the files at every read
      assert.deepStrictEqual(seen.map((s) => s.status).filter((s, i, all) => all.indexOf(s) === i).at(-1), "Completed")
      assert.isTrue(seen.every((s) => ["Running", "Completed"].includes(s.status)))
      assert.isTrue(seen.every((s) => Object.values(s.counts).reduce((a, b) => a + b, 0) <= 2), JSON.stringify(seen))
      assert.strictEqual(done.status, "Completed")
      assert.strictEqual(done.status_reason, "2 of 2 artifacts completed")
      assert.strictEqual(done.data_source_id, source)
      assert.strictEqual(done.created_by_schedule_id, null)
      assert.deepStrictEqual(done.artifacts_status, {
        artifacts_chunking: 0,
        artifacts_embedding: 0,
        artifacts_completed: 2,
        artifacts_pending: 0,
        artifacts_uploading: 0,
        artifacts_failed: 0
      })
      const artifacts = byName(done.artifacts)
      assert.deepStrictEqual(Object.keys(artifacts).sort(), ["notes.txt", "sub/more.md"])
      const notes = artifacts["notes.txt"]
      assert.strictEqual(notes.artifact_uri, "s3://small/notes.txt")
      assert.strictEqual(notes.source, "S3")
      assert.strictEqual(notes.status, "Completed")
      assert.deepStrictEqual(notes.chunks_status, { chunks_completed: 3, chunks_failed: 0, chunks_pending: 0 })
      // separator "\n\n", at most 6 characters, each chunk starting with the last pieces of the one before that fit in 2
      assert.deepStrictEqual(yield* chunksOf(caller, base, notes.artifact_id), ["aa\n\nbb", "bb\n\ncc", "cc\n\ndd"])
      assert.deepStrictEqual(yield* chunksOf(caller, base, artifacts["sub/more.md"].artifact_id), ["ee\n\nff"])
      // the knowledge base counts them; the artifact's chunks list pages them, in position order
      const kb = yield* ok(caller, "GET", `${base}?view=ArtifactCount,Connections`)
      assert.strictEqual(kb.artifact_count, 2)
      assert.strictEqual(kb.artifacts_status.artifacts_completed, 2)
      const page = yield* ok(caller, "GET", `${base}/artifacts/${notes.artifact_id}/chunks?limit=2&page=2`)
      assert.strictEqual(page.total_item_count, 3)
      assert.deepStrictEqual(page.items.map((chunk: any) => [chunk.chunk_position, chunk.text, chunk.status]), [[2, "cc\n\ndd", "Completed"]])
      assert.deepStrictEqual(page.items[0].metadata, {
        artifact_id: notes.artifact_id,
        artifact_name: "notes.txt",
        artifact_uri: "s3://small/notes.txt",
        source: "S3",
        chunk_position: 2
      })
      // listed among the base's uploads, and filtered by status
      const listed = yield* ok(caller, "GET", `${base}/uploads?status=Completed`)
      assert.deepStrictEqual(listed.items.map((item: any) => [item.id, item.status]), [[done.upload_id, "Completed"]])
      assert.strictEqual((yield* ok(caller, "GET", `${base}/uploads?status=Running`)).total_item_count, 0)
    }))

  it.effect("a file changed is read again and its chunks replaced; an unchanged one is not (unless force_reupload); a removed one's artifact goes", () =>
    Effect.gen(function*() {
      write("changing", "keep.txt", "stays the same")
      write("changing", "edit.txt", "the first version mentions a pelican")
      write("changing", "gone.txt", "soon removed")
      const { base, caller, source } = yield* setup("changing")
      const body = { data_source_id: source, chunking_strategy_config: { strategy: "character" } }
      const first = (yield* upload(caller, base, body)).upload
      const before = byName(first.artifacts)
      assert.strictEqual(first.status_reason, "3 of 3 artifacts completed")

      write("changing", "edit.txt", "the second version mentions a flamingo")
      Fs.rmSync(Path.join(root, "changing", "gone.txt"))
      const second = (yield* upload(caller, base, body)).upload
      assert.strictEqual(second.status, "Completed")
      assert.strictEqual(second.status_reason, "1 of 1 artifacts completed; 1 unchanged (not read again); 1 removed with their files")
      const edit = byName(second.artifacts)["edit.txt"]
      // the same artifact, its content hash and chunks new
      assert.strictEqual(edit.artifact_id, before["edit.txt"].artifact_id)
      assert.deepStrictEqual(yield* chunksOf(caller, base, edit.artifact_id), ["the second version mentions a flamingo"])
      const all = yield* ok(caller, "GET", `${base}/artifacts`)
      assert.deepStrictEqual(all.items.map((a: any) => a.artifact_name).sort(), ["edit.txt", "keep.txt"])
      const keep = all.items.find((a: any) => a.artifact_name === "keep.txt")
      assert.strictEqual(keep.upload_id, first.upload_id)
      assert.notStrictEqual(
        (yield* ok(caller, "GET", `${base}/artifacts/${edit.artifact_id}`)).content_modification_identifier,
        before["edit.txt"].content_modification_identifier
      )
      assert.strictEqual((yield* call(caller, "GET", `${base}/artifacts/${before["gone.txt"].artifact_id}`)).status, 404)
      // no chunk of the old text, nor of the removed file, is left to find
      const found = yield* ok(caller, "POST", `${base}/query`, { query: "pelican soon removed", top_k: 10 })
      assert.deepStrictEqual(found.chunks.map((c: any) => c.text).sort(), ["stays the same", "the second version mentions a flamingo"])

      const forced = (yield* upload(caller, base, { ...body, force_reupload: true })).upload
      assert.strictEqual(forced.status_reason, "2 of 2 artifacts completed")
      // never two sets of chunks for one artifact
      const chunks = yield* ok(caller, "GET", `${base}/chunks?max_chunks=100`)
      assert.strictEqual(chunks.chunks.length, 2)
    }))

  it.effect("files that cannot be read: each artifact Failed with its reason, the others completed; nothing outside the bucket is read", () =>
    Effect.gen(function*() {
      write("mixed", "good.txt", "readable text")
      write("mixed", "empty.txt", "")
      write("mixed", "binary.txt", new Uint8Array([104, 105, 0, 1, 2]))
      write("mixed", "latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]))
      write("mixed", "photo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]))
      write("mixed", "huge.txt", "x".repeat(5000))
      Fs.writeFileSync(Path.join(root, "outside-secret.txt"), "never to be read")
      // a link out of the bucket (the folder backend's; S3 has no links: `--mode s3` goes without)
      const links = testObjectStore === "folder"
      if (links) Fs.symlinkSync(Path.join(root, "outside-secret.txt"), Path.join(root, "mixed", "escape.txt"))
      const { base, caller, source } = yield* setup("mixed")
      const done = (yield* upload(caller, base, { data_source_id: source, chunking_strategy_config: { strategy: "character" } })).upload
      assert.strictEqual(done.status, "Completed")
      const artifacts = byName(done.artifacts)
      const outcome = (name: string) => [artifacts[name].status, artifacts[name].status_reason]
      assert.deepStrictEqual(outcome("good.txt"), ["Completed", null])
      assert.deepStrictEqual(outcome("empty.txt"), ["Completed", "No text to chunk"])
      assert.deepStrictEqual(outcome("binary.txt"), ["Failed", "A binary file, not text: binary.txt"])
      assert.deepStrictEqual(outcome("latin1.txt"), ["Failed", "Not UTF-8 text: latin1.txt"])
      assert.strictEqual(artifacts["photo.png"].status, "Failed")
      assert.match(artifacts["photo.png"].status_reason, /^Not a text file type this kit reads/)
      assert.deepStrictEqual(outcome("huge.txt"), ["Failed", "Object huge.txt is 5000 bytes, over the limit of 4096"])
      if (links) assert.deepStrictEqual(outcome("escape.txt"), ["Failed", "Object escape.txt leads outside its bucket"])
      assert.strictEqual(done.status_reason, links ? "2 of 7 artifacts completed; 5 failed" : "2 of 6 artifacts completed; 4 failed")
      assert.deepStrictEqual(done.artifacts_status.artifacts_failed, links ? 5 : 4)
      const texts = (yield* ok(caller, "GET", `${base}/chunks?max_chunks=100`)).chunks.map((c: any) => c.text)
      assert.deepStrictEqual(texts, ["readable text"])

      // a bucket that is not one, or a path out of the store: the upload Failed with why, nothing read
      for (const [bucket, reason] of [
        ["missing", missingBucket("missing")],
        ["..", "Not a bucket name: \"..\" (one folder name, no \"/\", \".\" or \"..\")"]
      ] as const) {
        const failed = (yield* upload(caller, base, {
          data_source_config: { source: "S3", s3_bucket: bucket },
          chunking_strategy_config: { strategy: "character" }
        })).upload
        assert.deepStrictEqual([failed.status, failed.status_reason, failed.artifacts], ["Failed", reason, []])
      }
      const traversal = (yield* upload(caller, base, {
        data_source_config: { source: "OBJECT_STORE", object_store_bucket: "mixed", object_store_prefix: "../", cloud_region: "r", cloud_account_id: "a" }
      })).upload
      assert.strictEqual(traversal.status, "Failed")
      assert.match(traversal.status_reason, /^Not an object prefix/)
      // nothing changed for the artifacts already there
      assert.strictEqual((yield* ok(caller, "GET", `${base}?view=ArtifactCount`)).artifact_count, links ? 7 : 6)
    }))

  it.effect("a config instead of a data source (S3 read as a folder of the store, a prefix); token and pre_chunked strategies", () =>
    Effect.gen(function*() {
      write("configured", "a/one.txt", "alpha beta gamma delta")
      write("configured", "b/two.txt", "not under the prefix")
      const { base, caller } = yield* setup("configured")
      const done = (yield* upload(caller, base, {
        data_source_config: { source: "S3", s3_bucket: "configured", s3_prefix: "a/", aws_region: "us-east-1" },
        chunking_strategy_config: { strategy: "token", max_chunk_size: 2, target_chunk_size: 2 }
      })).upload
      assert.strictEqual(done.status, "Completed")
      assert.deepStrictEqual(done.data_source_config, {
        source: "S3",
        s3_bucket: "configured",
        s3_prefix: "a/",
        aws_region: "us-east-1",
        aws_account_id: null
      })
      assert.strictEqual(done.data_source_id, null)
      const [one] = done.artifacts
      assert.strictEqual(one.artifact_name, "a/one.txt")
      // cl100k_base: four words, four tokens; windows of two
      assert.deepStrictEqual(yield* chunksOf(caller, base, one.artifact_id), ["alpha beta", " gamma delta"])
      const whole = (yield* upload(caller, base, {
        data_source_config: { source: "S3", s3_bucket: "configured", s3_prefix: "b/" },
        chunking_strategy_config: { strategy: "pre_chunked" }
      })).upload
      assert.deepStrictEqual(yield* chunksOf(caller, base, whole.artifacts[0].artifact_id), ["not under the prefix"])
      // strategies the kit does not serve: the artifact fails with why
      const custom = (yield* upload(caller, base, {
        data_source_config: { source: "S3", s3_bucket: "configured", s3_prefix: "b/" },
        chunking_strategy_config: { strategy: "custom", endpoint: "https://chunker.example" },
        force_reupload: true
      })).upload
      assert.strictEqual(custom.status, "Failed")
      assert.match(custom.artifacts[0].status_reason, /custom chunking strategy is not served/)
    }))

  it.effect("chunks given in the body: one artifact, positions and metadata kept; deduplication Fail refuses a second", () =>
    Effect.gen(function*() {
      const { base, caller } = yield* setup("unused")
      const config = { source: "LocalChunks", artifact_name: "faq.md", artifact_uri: "local://faq" }
      const done = (yield* upload(caller, base, {
        data_source_config: config,
        chunks: [
          { chunk_position: 3, text: "Third answer", metadata: { section: "c" } },
          { chunk_position: 1, text: "First answer" },
          { chunk_position: 2, text: "   " }
        ],
        tagging_information: { type: "all", tags_to_apply: { team: "support" } }
      })).upload
      assert.strictEqual(done.status, "Completed")
      const artifact = done.artifacts[0]
      assert.deepStrictEqual([artifact.artifact_name, artifact.artifact_uri, artifact.source, artifact.tags], [
        "faq.md",
        "local://faq",
        "LocalChunks",
        { team: "support" }
      ])
      const read = yield* ok(caller, "GET", `${base}/artifacts/${artifact.artifact_id}`)
      assert.deepStrictEqual(read.chunks.map((c: any) => [c.chunk_position, c.text, c.user_supplied_metadata]), [
        [1, "First answer", null],
        [3, "Third answer", { section: "c" }]
      ])
      assert.deepStrictEqual(read.chunks[1].metadata, {
        section: "c",
        team: "support",
        artifact_id: artifact.artifact_id,
        artifact_name: "faq.md",
        artifact_uri: "local://faq",
        source: "LocalChunks",
        chunk_position: 3
      })
      // Overwrite (the default) replaces the artifact's chunks; Fail refuses while it exists
      const again = (yield* upload(caller, base, { data_source_config: config, chunks: [{ chunk_position: 0, text: "Only answer" }] })).upload
      assert.strictEqual(again.artifacts[0].artifact_id, artifact.artifact_id)
      assert.deepStrictEqual(yield* chunksOf(caller, base, artifact.artifact_id), ["Only answer"])
      const refused = (yield* upload(caller, base, {
        data_source_config: { ...config, deduplication_strategy: "Fail" },
        chunks: [{ chunk_position: 0, text: "Refused" }]
      })).upload
      assert.deepStrictEqual([refused.status, refused.status_reason], [
        "Failed",
        "An artifact with URI local://faq exists already (deduplication_strategy Fail)"
      ])
      assert.deepStrictEqual(yield* chunksOf(caller, base, artifact.artifact_id), ["Only answer"])
    }))

  it.effect("cancel: a running upload Canceled (its artifacts too), once; another account's upload is a 404", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 40; i++) write("many", `file-${String(i).padStart(2, "0")}.txt`, `file number ${i}\n\n${"words ".repeat(50)}`)
      const { base, caller, source } = yield* setup("many")
      const created = yield* ok(caller, "POST", `${base}/uploads`, { data_source_id: source, chunking_strategy_config: { strategy: "character", chunk_size: 50, chunk_overlap: 0 } })
      const other = yield* provision()
      assert.strictEqual((yield* call(other, "POST", `${base}/uploads/${created.upload_id}/cancel`)).status, 404)
      assert.strictEqual((yield* call(other, "GET", `${base}/uploads/${created.upload_id}`)).status, 404)
      const canceled = yield* ok(caller, "POST", `${base}/uploads/${created.upload_id}/cancel`)
      const { upload: end } = yield* pollToEnd(caller, base, created.upload_id)
      if (canceled.canceled) {
        assert.deepStrictEqual([end.status, end.status_reason], ["Canceled", "Canceled by request"])
        assert.isTrue(end.artifacts.every((a: any) => ["Completed", "Canceled"].includes(a.status)), JSON.stringify(end.artifacts_status))
        // it stays canceled: nothing moves after
        const later = yield* ok(caller, "GET", `${base}/uploads/${created.upload_id}?include_artifact_list=true`)
        assert.deepStrictEqual(later.artifacts_status, end.artifacts_status)
      } else {
        // the machine ingested 40 files before the cancel came: it had ended
        assert.strictEqual(end.status, "Completed")
      }
      assert.deepStrictEqual(yield* ok(caller, "POST", `${base}/uploads/${created.upload_id}/cancel`), { canceled: false, upload_id: created.upload_id })
    }))

  it.effect("data sources: verify says whether the folder reads; PATCH; a connection's delete (dry run, then for real); DELETE takes the schedules", () =>
    Effect.gen(function*() {
      write("connected", "one.txt", "first file")
      write("connected", "two.txt", "second file")
      const { base, caller, kb, source } = yield* setup("connected")
      const sourcePath = `/v4/knowledge-base-data-sources/${source}`
      assert.deepStrictEqual(yield* ok(caller, "POST", `${sourcePath}/verify`), {
        knowledge_base_data_source_id: source,
        readable: true,
        status_reason: null,
        object_count: 2
      })
      const missing = yield* ok(caller, "POST", "/v4/knowledge-base-data-sources", {
        name: "nowhere",
        data_source_config: { source: "OBJECT_STORE", object_store_bucket: "no-such-bucket", cloud_region: "r", cloud_account_id: "a" }
      })
      assert.deepStrictEqual(yield* ok(caller, "POST", `/v4/knowledge-base-data-sources/${missing.id}/verify`), {
        knowledge_base_data_source_id: missing.id,
        readable: false,
        status_reason: missingBucket("no-such-bucket"),
        object_count: 0
      })
      const renamed = yield* ok(caller, "PATCH", sourcePath, { name: "renamed", description: "the connected folder" })
      assert.deepStrictEqual([renamed.name, renamed.description, renamed.data_source_config.object_store_bucket], [
        "renamed",
        "the connected folder",
        "connected"
      ])
      assert.strictEqual((yield* call(caller, "PATCH", sourcePath, { name: "" })).status, 422)

      // an upload connects the data source to the base
      yield* upload(caller, base, { data_source_id: source, chunking_strategy_config: { strategy: "character" } })
      const schedule = yield* ok(caller, "POST", `${base}/upload-schedules`, {
        knowledge_base_data_source_id: source,
        chunking_strategy_config: { strategy: "character" },
        interval: 0
      })
      const connections = (yield* ok(caller, "GET", `${base}?view=Connections`)).connections
      assert.deepStrictEqual(connections.map((c: any) => c.knowledge_base_data_source.id), [source])
      const connection = `${base}/data-source-connections/${source}/delete`
      assert.deepStrictEqual(yield* ok(caller, "POST", `${connection}?dry_run=true`), {
        artifacts_to_delete: { [source]: 2 },
        deletion_workflow_id: null
      })
      assert.strictEqual((yield* ok(caller, "GET", `${base}?view=ArtifactCount`)).artifact_count, 2)
      assert.deepStrictEqual(yield* ok(caller, "POST", connection), { artifacts_to_delete: { [source]: 2 }, deletion_workflow_id: null })
      const after = yield* ok(caller, "GET", `${base}?view=ArtifactCount,Connections`)
      assert.deepStrictEqual([after.artifact_count, after.connections], [0, []])
      assert.strictEqual((yield* ok(caller, "GET", `${base}/chunks`)).chunks.length, 0)
      assert.strictEqual((yield* call(caller, "GET", `${base}/upload-schedules/${schedule.id}`)).status, 404)
      assert.strictEqual((yield* ok(caller, "GET", `${base}/uploads`)).total_item_count, 0)

      // a data source's delete takes the schedules naming it with it
      const again = yield* ok(caller, "POST", `${base}/upload-schedules`, {
        knowledge_base_data_source_id: source,
        chunking_strategy_config: { strategy: "character" },
        interval: 0
      })
      assert.deepStrictEqual(yield* ok(caller, "DELETE", sourcePath), { count: 1, success: true })
      assert.strictEqual((yield* call(caller, "GET", sourcePath)).status, 404)
      assert.strictEqual((yield* call(caller, "GET", `${base}/upload-schedules/${again.id}`)).status, 404)
      // another account's data source: not there for it
      const other = yield* provision()
      assert.strictEqual((yield* call(other, "POST", `/v4/knowledge-base-data-sources/${missing.id}/verify`)).status, 404)
      assert.strictEqual((yield* call(other, "POST", `/v4/knowledge-bases/${kb}/data-source-connections/${missing.id}/delete`)).status, 404)
    }))

  it.effect("upload_files: a form of files is one upload, each file an artifact; a file posted again unchanged is not read; bad forms are a 422", () =>
    Effect.gen(function*() {
      const { base, caller, kb } = yield* setup("unused")
      const { client } = yield* provision({ accountId: caller.accountId })
      const form = (files: Record<string, string>, fields: Record<string, string>) => {
        const data = new FormData()
        for (const [name, text] of Object.entries(files)) data.append("files", new Blob([text], { type: "text/plain" }), name)
        for (const [name, value] of Object.entries(fields)) data.append(name, value)
        return data
      }
      const fields = {
        chunking_strategy_config: JSON.stringify({ strategy: "character", chunk_size: 5, chunk_overlap: 0 }),
        data_source_config: JSON.stringify({ note: "posted" }),
        force_reupload: "false",
        tagging_information: JSON.stringify({ type: "all", tags_to_apply: { team: "docs" } })
      }
      const posted = yield* client.knowledgeBaseUploads.uploadFiles({
        path: { knowledge_base_id: kb },
        payload: form({ "a.txt": "alpha\n\nbeta", "b.md": "gamma" }, fields)
      })
      assert.strictEqual(posted.upload_ids.length, 1)
      const { upload: done } = yield* pollToEnd(caller, base, posted.upload_ids[0]!)
      assert.deepStrictEqual([done.status, done.status_reason], ["Completed", "2 of 2 artifacts completed"])
      assert.deepStrictEqual(done.data_source_config, { note: "posted", source: "LocalFile" })
      const artifacts = byName(done.artifacts)
      assert.deepStrictEqual(
        Object.values(artifacts).map((a: any) => [a.artifact_name, a.artifact_uri, a.source, a.tags]),
        [["a.txt", "local://a.txt", "LocalFile", { team: "docs" }], ["b.md", "local://b.md", "LocalFile", { team: "docs" }]]
      )
      assert.deepStrictEqual(yield* chunksOf(caller, base, artifacts["a.txt"].artifact_id), ["alpha", "beta"])
      // the posted files are not kept once read
      const sql = yield* SqlClient.SqlClient
      assert.strictEqual(Number((yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM kb_upload_files`)[0]!.n), 0)

      // posted again: the unchanged file is not read again, the changed one replaces its chunks
      const again = yield* client.knowledgeBaseUploads.uploadFiles({
        path: { knowledge_base_id: kb },
        payload: form({ "a.txt": "alpha\n\nbeta", "b.md": "delta" }, fields)
      })
      const { upload: second } = yield* pollToEnd(caller, base, again.upload_ids[0]!)
      assert.strictEqual(second.status_reason, "1 of 1 artifacts completed; 1 unchanged (not read again)")
      assert.deepStrictEqual(yield* chunksOf(caller, base, artifacts["b.md"].artifact_id), ["delta"])

      // bad forms: every problem at its field, nothing written
      const before = (yield* ok(caller, "GET", `${base}/uploads`)).total_item_count
      const bad = yield* Effect.flip(client.knowledgeBaseUploads.uploadFiles({
        path: { knowledge_base_id: kb },
        payload: form({}, { chunking_strategy_config: "{not json", data_source_config: "[]", force_reupload: "maybe" })
      }))
      assert.strictEqual(bad._tag, "ValidationError")
      assert.deepStrictEqual((bad as any).detail.map((i: any) => i.loc.join(".")), [
        "body.files",
        "body.chunking_strategy_config",
        "body.data_source_config",
        "body.force_reupload"
      ])
      assert.strictEqual((yield* ok(caller, "GET", `${base}/uploads`)).total_item_count, before)
      // another account's knowledge base: not there
      const other = yield* provision()
      const foreign = yield* Effect.flip(other.client.knowledgeBaseUploads.uploadFiles({
        path: { knowledge_base_id: kb },
        payload: form({ "c.txt": "x" }, fields)
      }))
      assert.strictEqual(foreign._tag, "NotFound")
    }))
})
