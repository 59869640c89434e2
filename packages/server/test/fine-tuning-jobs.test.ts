import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { issues, provision, request, TestServerLive, uuidPattern as uuid, isoPattern as iso } from "../src/testing.js"
import { uploadDataset } from "./support/trainingDatasets.js"

/**
 * `job` read back as the create answered it: its lifecycle moves it on meanwhile
 * (fine-tuning-jobs-lifecycle.test.ts), its status and the model it names at the end.
 */
const asCreated = (job: any, created: any) => ({ ...job, status: created.status, fine_tuned_model_id: created.fine_tuned_model_id })

layer(TestServerLive)("fine-tuning jobs", (it) => {
  it.effect("create answers a PENDING job with every field; get and list read it back", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { accountId, identityId, key, client } = caller
      const [train, valid] = [yield* uploadDataset(caller), yield* uploadDataset(caller)]
      const response = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: {
          training_dataset_id: train,
          validation_dataset_id: valid,
          base_model_id: "base-model-1",
          fine_tuned_model_id: "tuned-model-1",
          vendor_configuration: {
            vendor: "LAUNCH",
            hyperparameters: { epochs: 3, lr: 0.0001 },
            tracker_config: { project: "ft" },
            suffix: "v1",
            output: "s3://bucket/out",
            unknown: true
          },
          account_id: accountId,
          status: "COMPLETED"
        }
      })
      assert.strictEqual(response.status, 200)
      const created = response.body
      assert.match(created.id, uuid)
      assert.match(created.created_at, iso)
      assert.deepStrictEqual(created, {
        id: created.id,
        training_dataset_id: train,
        validation_dataset_id: valid,
        base_model_id: "base-model-1",
        fine_tuned_model_id: "tuned-model-1",
        status: "PENDING",
        vendor_configuration: {
          vendor: "LAUNCH",
          hyperparameters: { epochs: 3, lr: 0.0001 },
          tracker_config: { project: "ft" },
          suffix: "v1",
          output: "s3://bucket/out"
        },
        account_id: accountId,
        created_by_user_id: identityId,
        created_by_identity_type: "user",
        created_at: created.created_at
      })

      const read = yield* request("GET", `/v4/fine-tuning-jobs/${created.id}`, { key })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(asCreated(read.body, created), created)
      // a given fine_tuned_model_id is kept through the lifecycle
      assert.strictEqual(read.body.fine_tuned_model_id, "tuned-model-1")
      const viaClient = yield* client.fineTuningJobs.get({ path: { fine_tuning_job_id: created.id } })
      assert.include(["PENDING", "RUNNING", "COMPLETED"], viaClient.status)
      assert.strictEqual(viaClient.vendor_configuration?.vendor, "LAUNCH")

      const page = yield* request("GET", "/v4/fine-tuning-jobs", { key })
      assert.deepStrictEqual(
        { ...page.body, items: page.body.items.map((item: any) => asCreated(item, created)) },
        { items: [created], total_item_count: 1, current_page: 1, items_per_page: 100 }
      )
    }))

  it.effect("optional fields not given are null; Launch fields not given are null; open vendors are kept as given", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { accountId, key, client } = caller
      const train = yield* uploadDataset(caller)
      const minimal = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: { training_dataset_id: train, account_id: accountId, base_model_id: null }
      })
      assert.strictEqual(minimal.status, 200)
      for (const field of ["validation_dataset_id", "base_model_id", "fine_tuned_model_id", "vendor_configuration"]) {
        assert.strictEqual(minimal.body[field], null, field)
      }

      const launch = yield* client.fineTuningJobs.create({
        payload: { training_dataset_id: train, account_id: accountId, vendor_configuration: { vendor: "LAUNCH" } }
      })
      assert.deepStrictEqual(
        { ...launch.vendor_configuration },
        { vendor: "LAUNCH", hyperparameters: null, tracker_config: null, suffix: null, output: null }
      )

      const engine = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: {
          training_dataset_id: train,
          account_id: accountId,
          vendor_configuration: { vendor: "ENGINE", hyperparameters: { epochs: 1 }, anything: ["goes"] }
        }
      })
      assert.strictEqual(engine.status, 200)
      assert.deepStrictEqual(engine.body.vendor_configuration, {
        vendor: "ENGINE",
        hyperparameters: { epochs: 1 },
        anything: ["goes"]
      })
      const external = yield* client.fineTuningJobs.create({
        payload: {
          training_dataset_id: train,
          account_id: accountId,
          vendor_configuration: { vendor: "EXTERNAL_VENDOR", suffix: "x" }
        }
      })
      assert.deepStrictEqual(external.vendor_configuration, { vendor: "EXTERNAL_VENDOR", suffix: "x" })

      const read = yield* request("GET", `/v4/fine-tuning-jobs/${engine.body.id}`, { key })
      assert.deepStrictEqual(asCreated(read.body, engine.body), engine.body)
      assert.strictEqual((yield* client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 4)
    }))

  it.effect("validation: missing fields, wrong types and bad vendor configurations give 422; nothing is written", () =>
    Effect.gen(function*() {
      const { accountId, key, client } = yield* provision()
      const missing = yield* request("POST", "/v4/fine-tuning-jobs", { key, body: { base_model_id: "m" } })
      assert.strictEqual(missing.status, 422)
      assert.deepStrictEqual(issues(missing), [
        { loc: ["body", "training_dataset_id"], type: "missing" },
        { loc: ["body", "account_id"], type: "missing" }
      ])

      const wrong = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: {
          training_dataset_id: 1,
          account_id: accountId,
          base_model_id: "",
          fine_tuned_model_id: false,
          vendor_configuration: { vendor: "LAUNCH", hyperparameters: [], suffix: 2 }
        }
      })
      assert.strictEqual(wrong.status, 422)
      assert.deepStrictEqual(issues(wrong), [
        { loc: ["body", "training_dataset_id"], type: "string_type" },
        { loc: ["body", "base_model_id"], type: "string_too_short" },
        { loc: ["body", "vendor_configuration", "hyperparameters"], type: "dict_type" },
        { loc: ["body", "vendor_configuration", "suffix"], type: "string_type" },
        { loc: ["body", "fine_tuned_model_id"], type: "string_type" }
      ])

      const vendor = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: { training_dataset_id: "t", account_id: accountId, vendor_configuration: { vendor: "OTHER" } }
      })
      assert.deepStrictEqual(issues(vendor), [{ loc: ["body", "vendor_configuration", "vendor"], type: "literal_error" }])

      const untagged = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: { training_dataset_id: "t", account_id: accountId, vendor_configuration: { suffix: "x" } }
      })
      assert.deepStrictEqual(issues(untagged), [{ loc: ["body", "vendor_configuration", "vendor"], type: "missing" }])

      const notObject = yield* request("POST", "/v4/fine-tuning-jobs", {
        key,
        body: { training_dataset_id: "t", account_id: accountId, vendor_configuration: "LAUNCH" }
      })
      // a value that is no variant of the union of objects: an object was expected
      assert.deepStrictEqual(issues(notObject), [{ loc: ["body", "vendor_configuration"], type: "dict_type" }])

      assert.strictEqual((yield* client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 0)
    }))

  it.effect("401 without a key or with an unknown one, on every endpoint", () =>
    Effect.gen(function*() {
      const { accountId } = yield* provision()
      const create = yield* request("POST", "/v4/fine-tuning-jobs", {
        body: { training_dataset_id: "t", account_id: accountId }
      })
      assert.strictEqual(create.status, 401)
      assert.isString(create.body.detail)
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs/x")).status, 401)
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs", { key: "pk_nope" })).status, 401)
    }))

  it.effect("404 for a missing id and for another account's job; 403 for another account_id", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const job = yield* alice.client.fineTuningJobs.create({
        payload: { training_dataset_id: yield* uploadDataset(alice), account_id: alice.accountId }
      })

      const missing = yield* Effect.flip(bob.client.fineTuningJobs.get({ path: { fine_tuning_job_id: "nope" } }))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = yield* request("GET", `/v4/fine-tuning-jobs/${job.id}`, { key: bob.key })
      assert.strictEqual(foreign.status, 404)
      assert.deepStrictEqual(foreign.body, { detail: `Fine-tuning job ${job.id} not found` })

      const forbidden = yield* Effect.flip(
        bob.client.fineTuningJobs.create({ payload: { training_dataset_id: "t", account_id: alice.accountId } })
      )
      assert.strictEqual(forbidden._tag, "Forbidden")
      const foreignList = yield* request("GET", `/v4/fine-tuning-jobs?account_id=${alice.accountId}`, { key: bob.key })
      assert.strictEqual(foreignList.status, 403)
      assert.strictEqual((yield* bob.client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 0)
      assert.strictEqual((yield* alice.client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 1)
    }))

  it.effect("list pages newest first and validates page and limit", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const { accountId, key, client } = caller
      const t: Array<string> = []
      for (let i = 0; i < 3; i++) {
        t.push(yield* uploadDataset(caller))
        yield* client.fineTuningJobs.create({ payload: { training_dataset_id: t[i]!, account_id: accountId } })
        yield* TestClock.adjust("1 millis")
      }
      const first = yield* client.fineTuningJobs.list({ urlParams: { limit: 2 } })
      assert.deepStrictEqual(first.items.map((j) => j.training_dataset_id), [t[2], t[1]])
      assert.strictEqual(first.total_item_count, 3)
      const second = yield* client.fineTuningJobs.list({ urlParams: { page: 2, limit: 2 } })
      assert.deepStrictEqual(second.items.map((j) => j.training_dataset_id), [t[0]])

      const bad = yield* request("GET", "/v4/fine-tuning-jobs?page=1.5&limit=10001", { key })
      assert.strictEqual(bad.status, 422)
      assert.deepStrictEqual(issues(bad), [
        { loc: ["query", "page"], type: "int_type" },
        { loc: ["query", "limit"], type: "range_error" }
      ])
    }))
})
