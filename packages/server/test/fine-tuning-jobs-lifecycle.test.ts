import { assert, layer } from "@effect/vitest"
import { Effect, TestServices } from "effect"
import { lossAfter } from "../src/fine-tuning-jobs/training.js"
import { provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { timedServer } from "./support/progression.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

/** The statuses a poller of job `id` sees, each change once, until `done` (every `every` ms, 15 s at most). */
const pollStatuses = (id: string, key: string, done: (status: string) => boolean, every = 5) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const started = Date.now()
    while (Date.now() - started < 15_000) {
      const status = (yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key })).body.status as string
      if (seen.at(-1) !== status) seen.push(status)
      if (done(status)) break
      yield* live(every)
    }
    return seen
  })

const createJob = (caller: { key: string; accountId: string }, body: Record<string, unknown> = {}) =>
  Effect.map(
    request("POST", "/v4/fine-tuning-jobs", {
      key: caller.key,
      body: { training_dataset_id: "train-1", base_model_id: "base-1", account_id: caller.accountId, ...body }
    }),
    (response) => {
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.status, "PENDING")
      return response.body.id as string
    }
  )

const eventsOf = (id: string, key: string) =>
  Effect.map(request("GET", `/v4/fine-tuning-jobs/${id}/events`, { key }), (response) => {
    assert.strictEqual(response.status, 200)
    return response.body as Array<{ level: string; message: string; timestamp: number }>
  })

const finished = (status: string) => status === "COMPLETED" || status === "FAILED" || status === "CANCELED"

layer(TestServerLive)("fine-tuning job lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("PENDING, RUNNING, then COMPLETED with a new fine_tuned_model_id; the log has one entry per step and epoch, in order", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 2 } } })
      const seen = yield* pollStatuses(id, caller.key, finished)
      assert.strictEqual(seen.at(-1), "COMPLETED")
      // what a poller can see, in this order (a fast engine may move past RUNNING between two reads)
      assert.includeDeepMembers(["PENDING", "RUNNING", "COMPLETED"], seen)
      assert.deepStrictEqual(seen, ["PENDING", "RUNNING", "COMPLETED"].filter((status) => seen.includes(status)))

      const job = (yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })).body
      assert.match(job.fine_tuned_model_id, uuid)
      const events = yield* eventsOf(id, caller.key)
      assert.deepStrictEqual(events.map((event) => event.message), [
        "Fine-tuning job created, waiting for a trainer",
        "Training started (simulated): 2 epochs of 100 steps, base model base-1, training dataset train-1",
        `Epoch 1/2: step 100, train_loss ${lossAfter(id, 1).toFixed(4)}`,
        `Epoch 2/2: step 200, train_loss ${lossAfter(id, 2).toFixed(4)}`,
        `Training completed: fine-tuned model ${job.fine_tuned_model_id}`
      ])
      assert.isTrue(events.every((event) => event.level === "info" && typeof event.timestamp === "number"))
      // the typed client reads the same bare array
      const typed = yield* caller.client.fineTuningJobs.events({ path: { fine_tuning_job_id: id } })
      assert.deepStrictEqual(typed.map((event) => event.message), events.map((event) => event.message))
      // nothing moves or logs after the end
      yield* live(300)
      assert.strictEqual((yield* eventsOf(id, caller.key)).length, 5)
    }))

  it.effect("a fine_tuned_model_id given at create is kept; without hyperparameters a job runs 3 epochs", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { fine_tuned_model_id: "my-model" })
      yield* pollStatuses(id, caller.key, finished)
      const job = (yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })).body
      assert.strictEqual(job.status, "COMPLETED")
      assert.strictEqual(job.fine_tuned_model_id, "my-model")
      const epochs = (yield* eventsOf(id, caller.key)).filter((event) => event.message.startsWith("Epoch "))
      assert.strictEqual(epochs.length, 3)
    }))

  it.effect("DELETE of a finished job deletes it and its log: 404 after; another account's job or log is a 404", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* createJob(alice)
      yield* pollStatuses(id, alice.key, finished)

      const foreignEvents = yield* request("GET", `/v4/fine-tuning-jobs/${id}/events`, { key: bob.key })
      assert.strictEqual(foreignEvents.status, 404)
      assert.deepStrictEqual(foreignEvents.body, { detail: `Fine-tuning job ${id} not found` })
      const foreignDelete = yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`, { key: bob.key })
      assert.strictEqual(foreignDelete.status, 404)
      assert.strictEqual((yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`)).status, 401)
      assert.strictEqual((yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: alice.key })).body.status, "COMPLETED")

      const deleted = yield* alice.client.fineTuningJobs.delete({ path: { fine_tuning_job_id: id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      assert.strictEqual((yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("GET", `/v4/fine-tuning-jobs/${id}/events`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`, { key: alice.key })).status, 404)
      assert.strictEqual((yield* request("GET", "/v4/fine-tuning-jobs", { key: alice.key })).body.total_item_count, 0)
    }))
})


layer(timedServer(0.5))("fine-tuning job lifecycle, timed progression", (it) => {
  it.effect("a poller sees PENDING, RUNNING and COMPLETED, each for its simulated steps", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 1 } } })
      const seen = yield* pollStatuses(id, caller.key, finished, 20)
      assert.deepStrictEqual(seen, ["PENDING", "RUNNING", "COMPLETED"])
    }))

  it.effect("DELETE of a RUNNING job cancels it: CANCELED at once, kept with its log, and no epoch is logged after", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 5 } } })
      yield* pollStatuses(id, caller.key, (status) => status !== "PENDING", 20)
      const deleted = yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(deleted.body, { count: 1, success: true })
      const job = (yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })).body
      assert.strictEqual(job.status, "CANCELED")
      assert.strictEqual(job.fine_tuned_model_id, null)
      const atCancel = yield* eventsOf(id, caller.key)
      assert.deepStrictEqual(atCancel.at(-1), { ...atCancel.at(-1)!, level: "warning", message: "Fine-tuning job canceled" })
      // the epochs' steps would have gone on: nothing is logged or moved after the cancel
      yield* live(2500)
      assert.deepStrictEqual(yield* eventsOf(id, caller.key), atCancel)
      assert.strictEqual((yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })).body.status, "CANCELED")
    }))

  it.effect("DELETE of a PENDING job cancels it before it starts", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller)
      const deleted = yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })
      assert.strictEqual(deleted.status, 200)
      yield* live(1500)
      assert.strictEqual((yield* request("GET", `/v4/fine-tuning-jobs/${id}`, { key: caller.key })).body.status, "CANCELED")
      assert.deepStrictEqual((yield* eventsOf(id, caller.key)).map((event) => event.message), [
        "Fine-tuning job created, waiting for a trainer",
        "Fine-tuning job canceled"
      ])
    }))
})
