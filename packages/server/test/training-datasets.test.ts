import { afterAll, assert, describe, it as plain, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Accounts } from "../src/auth/Accounts.js"
import { makeRowReader } from "../src/training-datasets/rows.js"
import { isoPattern as iso, issues, provision, request, uuidPattern as uuid } from "../src/testing.js"
import { serverWith } from "./support/progression.js"
import { datasetForm, uploadDataset } from "./support/trainingDatasets.js"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "training-datasets-"))
afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))
const files = Path.join(root, ".platform", "training-datasets")
/** The files of the datasets' bucket (none before the first upload). */
const stored = () => (Fs.existsSync(files) ? Fs.readdirSync(files).sort() : [])

const generation = (input: string, output: string) => ({ input, output, schema_type: "GENERATION" })

/** Every row `text` gives when fed `step` bytes at a time, and the problems. */
const readAll = (text: string, format: "jsonl" | "csv" | undefined, step: number) => {
  const reader = makeRowReader(format)
  const bytes = new TextEncoder().encode(text)
  const rows = []
  for (let i = 0; i < bytes.length; i += step) rows.push(...reader.feed(bytes.subarray(i, i + step)))
  rows.push(...reader.end())
  return { rows, problems: reader.problems().map((p) => p.message), format: reader.format() }
}

describe("training dataset rows (rows.ts)", () => {
  plain("JSON Lines and CSV read the same whatever the chunks (a character split between two); the format told by the first character", () => {
    const jsonl = "{\"input\":\"héllo 😀\",\"output\":\"a\\nb\",\"extra\":1}\r\n\n  \n{\"input\":\"\",\"output\":\"x\",\"schema_type\":\"GENERATION\"}"
    const csv = "\uFEFFid,output,input\r\n1,\"say \"\"hi\"\"\",plain\r\n\r\n2,\"two\nlines\",😀\n3,,\"\""
    for (const step of [1, 2, 3, 7, 1000]) {
      assert.deepStrictEqual(readAll(jsonl, "jsonl", step), {
        rows: [{ input: "héllo 😀", output: "a\nb" }, { input: "", output: "x" }],
        problems: [],
        format: "jsonl"
      })
      assert.deepStrictEqual(readAll(csv, undefined, step), {
        rows: [{ input: "plain", output: "say \"hi\"" }, { input: "😀", output: "two\nlines" }, { input: "", output: "" }],
        problems: [],
        format: "csv"
      })
    }
    assert.strictEqual(readAll("\n {\"input\":\"a\",\"output\":\"b\"}", undefined, 1).format, "jsonl")
  })

  plain("malformed rows name their line (a CSV record the line it starts on); the text stops at what cannot be read on", () => {
    assert.deepStrictEqual(
      readAll("{\"input\":\"a\",\"output\":\"b\"}\nnope\n[1]\n{\"input\":1}\n{\"input\":\"a\",\"output\":\"b\",\"schema_type\":\"X\"}", "jsonl", 5).problems,
      [
        "Line 2: not a JSON object (the line does not parse as JSON)",
        "Line 3: not a JSON object but an array",
        "Line 4: \"input\" must be a string, not a number; \"output\" is missing",
        "Line 5: \"schema_type\" must be \"GENERATION\", not \"X\""
      ]
    )
    assert.deepStrictEqual(readAll("input,output\na,\"b\nc\",d\n\"x\"y,z", "csv", 4).problems, [
      "Line 2: 3 fields where the header has 2",
      "Line 4: a character after a closing quote: \"y\" (a quoted field ends at a comma or a line's end)"
    ])
    assert.deepStrictEqual(readAll("input,output\na,\"b", "csv", 4).problems, ["Line 2: a quoted field is not closed by the end of the file"])
    assert.deepStrictEqual(readAll("question,answer\na,b", "csv", 4).problems, [
      "Line 1: the header has no \"input\" column; the header has no \"output\" column"
    ])
    assert.deepStrictEqual(readAll("{\"input\":\"a\",\"output\":\"b\"}\n\u0000", "jsonl", 100).problems, ["Line 2: a NUL byte: not a text file"])
    const invalid = makeRowReader("jsonl")
    invalid.feed(new Uint8Array([0x7b, 0xff, 0x0a]))
    assert.deepStrictEqual(invalid.problems().map((p) => p.message), ["Line 1: not UTF-8 text"])
    // at most 10 described, the rest counted
    const many = makeRowReader("jsonl")
    many.feed(new TextEncoder().encode("x\n".repeat(13)))
    many.end()
    assert.deepStrictEqual([many.problems().length, many.moreProblems(), many.count()], [10, 3, 0])
  })
})

layer(serverWith({ PLATFORM_OBJECT_STORE_ROOT: root, PLATFORM_PROGRESSION: "manual" }))("training datasets", (it) => {
  it.effect("upload answers the dataset (LocalFile, audit fields from the key); get and list read it back; contents answers its rows; the file is in the store as sent", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const text = `${JSON.stringify({ input: "What is 2 + 2?", output: "4" })}\n${JSON.stringify({ input: "Capital of France?", output: "Paris", tags: ["geo"] })}\n`
      const created = yield* caller.client.trainingDatasets.create({
        payload: datasetForm({ name: "train.jsonl", content: text }, {
          account_id: caller.accountId,
          name: "arithmetic",
          schema_type: "GENERATION",
          created_by_user_id: "someone-else"
        })
      })
      assert.match(created.id, uuid)
      assert.match(created.created_at, iso)
      const expected = {
        id: created.id,
        account_id: caller.accountId,
        created_at: created.created_at,
        created_by_user_id: caller.identityId,
        data_source: "LocalFile",
        name: "arithmetic",
        schema_type: "GENERATION"
      }
      assert.deepStrictEqual({ ...created }, expected)

      const read = yield* request("GET", `/v4/training-datasets/${created.id}`, { key: caller.key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, expected)
      const page = yield* request("GET", "/v4/training-datasets", { key: caller.key })
      assert.deepStrictEqual(page.body, { items: [expected], total_item_count: 1, current_page: 1, items_per_page: 100 })

      const contents = yield* request("GET", `/v4/training-datasets/${created.id}/contents`, { key: caller.key })
      assert.strictEqual(contents.status, 200)
      assert.strictEqual(contents.headers["content-type"], "application/json")
      assert.deepStrictEqual(contents.body, [generation("What is 2 + 2?", "4"), generation("Capital of France?", "Paris")])
      const typed = yield* caller.client.trainingDatasets.contents({ path: { training_dataset_id: created.id } })
      assert.deepStrictEqual(typed.map((row) => [row.input, row.output, row.schema_type]), [
        ["What is 2 + 2?", "4", "GENERATION"],
        ["Capital of France?", "Paris", "GENERATION"]
      ])
      assert.strictEqual(Fs.readFileSync(Path.join(files, created.id), "utf8"), text)
    }))

  it.effect("a CSV file (by its name, or by its first character): quoted fields, CRLF, other columns ignored; contents in file order", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const fields = { account_id: caller.accountId, name: "csv", schema_type: "GENERATION" }
      const csv = "input,note,output\r\n\"Say \"\"hi\"\"\",x,\"hi,\nthere\"\r\nplain,y,text\r\n"
      for (const name of ["rows.csv", "rows"]) {
        const dataset = yield* caller.client.trainingDatasets.create({ payload: datasetForm({ name, content: csv }, fields) })
        const rows = yield* request("GET", `/v4/training-datasets/${dataset.id}/contents`, { key: caller.key })
        assert.deepStrictEqual(rows.body, [generation("Say \"hi\"", "hi,\nthere"), generation("plain", "text")])
      }
      // a file part sent as application/json (a field to the form parser) is the file all the same
      const json = new FormData()
      for (const [name, value] of Object.entries(fields)) json.append(name, value)
      json.append("file", new Blob(["{\"input\":\"j\",\"output\":\"k\"}"], { type: "application/json" }), "rows.json")
      const fromJson = yield* caller.client.trainingDatasets.create({ payload: json })
      assert.deepStrictEqual((yield* request("GET", `/v4/training-datasets/${fromJson.id}/contents`, { key: caller.key })).body, [generation("j", "k")])
      // two files: refused, nothing kept
      const before = stored()
      const two = datasetForm({ name: "a.jsonl", content: "{\"input\":\"a\",\"output\":\"b\"}" }, fields)
      two.append("file", new Blob(["{\"input\":\"c\",\"output\":\"d\"}"]), "b.jsonl")
      const refused = yield* Effect.flip(caller.client.trainingDatasets.create({ payload: two }))
      assert.deepStrictEqual((refused as any).detail.map((issue: any) => [issue.loc.join("."), issue.msg]), [["body.file", "One file is read, 2 were sent"]])
      assert.deepStrictEqual(stored(), before)
      // a large file, streamed in and out in many chunks
      const many = Array.from({ length: 3000 }, (_, i) => ({ input: `question ${i} ${"x".repeat(40)}`, output: `answer ${i}` }))
      const id = yield* uploadDataset(caller, many, "large")
      const back = yield* request("GET", `/v4/training-datasets/${id}/contents`, { key: caller.key })
      assert.deepStrictEqual(back.body, many.map((row) => generation(row.input, row.output)))
    }))

  it.effect("a malformed row is a 422 naming its line, with every problem of the form; nothing is stored", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const before = stored()
      const fields = { account_id: caller.accountId, name: "bad", schema_type: "GENERATION" }
      const bad = yield* Effect.flip(caller.client.trainingDatasets.create({
        payload: datasetForm({ name: "bad.jsonl", content: "{\"input\":\"a\",\"output\":\"b\"}\n{\"input\":\"a\"}\n\nnot json\n" }, fields)
      }))
      assert.strictEqual(bad._tag, "ValidationError")
      assert.deepStrictEqual((bad as any).detail.map((issue: any) => ({ ...issue })), [
        { loc: ["body", "file"], msg: "Line 2: \"output\" is missing", type: "value_error", ctx: { line: 2 } },
        { loc: ["body", "file"], msg: "Line 4: not a JSON object (the line does not parse as JSON)", type: "value_error", ctx: { line: 4 } }
      ])

      const csv = yield* request("POST", "/v4/training-datasets", { key: caller.key, body: "{}" })
      assert.strictEqual(csv.status, 422)
      assert.deepStrictEqual(issues(csv), [{ loc: ["body", "file"], type: "value_error" }])

      // every field's problem at once, the file's too
      const all = yield* Effect.flip(caller.client.trainingDatasets.create({
        payload: datasetForm({ name: "rows.csv", content: "input,output\n\"open" }, { name: "", schema_type: "CLASSIFICATION" })
      }))
      assert.deepStrictEqual((all as any).detail.map((issue: any) => [issue.loc.join("."), issue.type, issue.msg]), [
        ["body.file", "value_error", "Line 2: a quoted field is not closed by the end of the file"],
        ["body.account_id", "missing", "Field required"],
        ["body.name", "string_too_short", "String should have at least 1 characters"],
        ["body.schema_type", "literal_error", "Input should be 'GENERATION' or 'RERANKING_QUESTIONS'"]
      ])
      const missing = yield* Effect.flip(caller.client.trainingDatasets.create({ payload: datasetForm(undefined, {}) }))
      assert.deepStrictEqual((missing as any).detail.map((issue: any) => [issue.loc.join("."), issue.type]), [
        ["body.file", "missing"],
        ["body.account_id", "missing"],
        ["body.name", "missing"],
        ["body.schema_type", "missing"]
      ])
      // only GENERATION is supported; an empty file has no rows
      const reranking = yield* Effect.flip(caller.client.trainingDatasets.create({
        payload: datasetForm({ name: "r.jsonl", content: "\n \n" }, { ...fields, schema_type: "RERANKING_QUESTIONS" })
      }))
      assert.deepStrictEqual((reranking as any).detail.map((issue: any) => [issue.loc.join("."), issue.type, issue.msg]), [
        ["body.file", "value_error", "The file has no rows: a training dataset needs at least one"],
        ["body.schema_type", "value_error", "Only GENERATION datasets are supported"]
      ])
      assert.strictEqual((yield* caller.client.trainingDatasets.list({ urlParams: {} })).total_item_count, 0)
      assert.deepStrictEqual(stored(), before)
    }))

  it.effect("401 without a key; 403 for another account_id (nothing stored); 404 for a missing id and another account's dataset", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* uploadDataset(alice)
      assert.strictEqual((yield* request("GET", `/v4/training-datasets/${id}`)).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/training-datasets", { key: "pk_nope" })).status, 401)

      const before = stored()
      const forbidden = yield* Effect.flip(bob.client.trainingDatasets.create({
        payload: datasetForm({ name: "x.jsonl", content: "{\"input\":\"a\",\"output\":\"b\"}" }, {
          account_id: alice.accountId,
          name: "theirs",
          schema_type: "GENERATION"
        })
      }))
      assert.strictEqual(forbidden._tag, "Forbidden")
      assert.deepStrictEqual(stored(), before)
      assert.strictEqual((yield* request("GET", `/v4/training-datasets?account_id=${alice.accountId}`, { key: bob.key })).status, 403)

      for (const target of [`/v4/training-datasets/${id}`, `/v4/training-datasets/${id}/contents`]) {
        const foreign = yield* request("GET", target, { key: bob.key })
        assert.strictEqual(foreign.status, 404)
        assert.deepStrictEqual(foreign.body, { detail: `Training dataset ${id} not found` })
      }
      assert.strictEqual((yield* request("DELETE", `/v4/training-datasets/${id}`, { key: bob.key })).status, 404)
      assert.strictEqual((yield* Effect.flip(bob.client.trainingDatasets.get({ path: { training_dataset_id: "nope" } })))._tag, "NotFound")
      assert.strictEqual((yield* bob.client.trainingDatasets.list({ urlParams: {} })).total_item_count, 0)
      assert.strictEqual((yield* alice.client.trainingDatasets.get({ path: { training_dataset_id: id } })).id, id)
    }))

  it.effect("list: every account of the caller, newest first, paged, narrowed by account_id", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const caller = yield* provision()
      const second = yield* accounts.createAccount()
      yield* accounts.addMember(caller.identityId, second)
      for (const [i, accountId] of [caller.accountId, second, caller.accountId].entries()) {
        yield* uploadDataset({ accountId, client: caller.client }, undefined, `d${i}`)
        yield* TestClock.adjust("1 millis")
      }
      const all = yield* caller.client.trainingDatasets.list({ urlParams: {} })
      assert.deepStrictEqual(all.items.map((d) => d.name), ["d2", "d1", "d0"])
      const narrowed = yield* caller.client.trainingDatasets.list({ urlParams: { account_id: second } })
      assert.deepStrictEqual(narrowed.items.map((d) => d.name), ["d1"])
      const paged = yield* caller.client.trainingDatasets.list({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual([paged.items.map((d) => d.name), paged.total_item_count, paged.current_page], [["d0"], 3, 2])
    }))

  it.effect("fine-tuning jobs name a dataset of their account (404 otherwise); delete is a 409 while such a job has not ended, then removes the row and the file", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* uploadDataset(alice)
      const validation = yield* uploadDataset(alice, [{ input: "v", output: "w" }])
      const bobs = yield* uploadDataset(bob)

      for (const payload of [{ training_dataset_id: "no-such-dataset" }, { training_dataset_id: bobs }, { training_dataset_id: id, validation_dataset_id: "nope" }]) {
        const missing = yield* request("POST", "/v4/fine-tuning-jobs", { key: alice.key, body: { ...payload, account_id: alice.accountId } })
        assert.strictEqual(missing.status, 404)
        const named = "validation_dataset_id" in payload ? payload.validation_dataset_id : payload.training_dataset_id
        assert.deepStrictEqual(missing.body, { detail: `Training dataset ${named} not found` })
      }
      assert.strictEqual((yield* alice.client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 0)

      const job = yield* alice.client.fineTuningJobs.create({
        payload: { training_dataset_id: id, validation_dataset_id: validation, account_id: alice.accountId }
      })
      // the suite's server parks simulated steps (`manual`): the job stays PENDING until deleted
      for (const named of [id, validation]) {
        const busy = yield* request("DELETE", `/v4/training-datasets/${named}`, { key: alice.key })
        assert.strictEqual(busy.status, 409)
        assert.deepStrictEqual(busy.body, {
          detail: `Training dataset ${named} is named by fine-tuning job ${job.id}, which is PENDING: delete the dataset once the job has ended (or delete the job to cancel it)`
        })
      }
      assert.deepStrictEqual(stored().filter((name) => name === id || name === validation).length, 2)
      // the job cancelled (CANCELED: ended), the datasets may go
      yield* alice.client.fineTuningJobs.delete({ path: { fine_tuning_job_id: job.id } })
      assert.strictEqual((yield* alice.client.fineTuningJobs.get({ path: { fine_tuning_job_id: job.id } })).status, "CANCELED")
      const deleted = yield* alice.client.trainingDatasets.delete({ path: { training_dataset_id: id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      yield* alice.client.trainingDatasets.delete({ path: { training_dataset_id: validation } })
      assert.isFalse(stored().includes(id))
      assert.isFalse(stored().includes(validation))
      assert.strictEqual((yield* Effect.flip(alice.client.trainingDatasets.get({ path: { training_dataset_id: id } })))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(alice.client.trainingDatasets.contents({ path: { training_dataset_id: id } })))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(alice.client.trainingDatasets.delete({ path: { training_dataset_id: id } })))._tag, "NotFound")
      // the job that named it stays readable, naming it still
      const kept = yield* alice.client.fineTuningJobs.get({ path: { fine_tuning_job_id: job.id } })
      assert.strictEqual(kept.training_dataset_id, id)
      assert.isTrue(stored().includes(bobs))
    }))
})
