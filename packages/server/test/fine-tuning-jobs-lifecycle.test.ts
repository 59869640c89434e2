import { assert, layer } from "@effect/vitest"
import type { Client } from "@platform-kit/client"
import type { CreateFineTuningJob } from "@platform-kit/schema"
import { Effect, Option, TestServices } from "effect"
import { lossAfter } from "../src/fine-tuning-jobs/training.js"
import { eventually, provision, request, TestServerLive, uuidPattern as uuid } from "../src/testing.js"
import { timedServer } from "./support/progression.js"
import { uploadDataset } from "./support/trainingDatasets.js"

const live = (millis: number) => TestServices.provideLive(Effect.sleep(`${millis} millis`))

const getJob = (id: string, client: Client) => client.fineTuningJobs.get({ path: { fine_tuning_job_id: id } })

/** The statuses a poller of job `id` sees, each change once, until `done` (`eventually`, 15 s at most). */
const pollStatuses = (id: string, client: Client, done: (status: string) => boolean) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    yield* eventually(
      Effect.map(getJob(id, client), ({ status }) => {
        if (seen.at(-1) !== status) seen.push(status)
        return Option.liftPredicate(status, done)
      }),
      15_000
    )
    return seen
  })

/** A job on a new training dataset (`uploadDataset`), answered PENDING: its id. */
const createJob = (caller: { accountId: string; client: Client }, payload: Partial<CreateFineTuningJob> = {}) =>
  Effect.flatMap(uploadDataset(caller), (training_dataset_id) =>
    Effect.map(
      caller.client.fineTuningJobs.create({
        payload: { training_dataset_id, base_model_id: "base-1", account_id: caller.accountId, ...payload }
      }),
      (job) => {
        assert.strictEqual(job.status, "PENDING")
        return job.id
      }
    ))

const eventsOf = (id: string, client: Client) => client.fineTuningJobs.events({ path: { fine_tuning_job_id: id } })

const finished = (status: string) => status === "COMPLETED" || status === "FAILED" || status === "CANCELED"

layer(TestServerLive)("fine-tuning job lifecycle, immediate progression (the suite's)", (it) => {
  it.effect("PENDING, RUNNING, then COMPLETED with a new fine_tuned_model_id; the log has one entry per step and epoch, in order", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 2 } } })
      const seen = yield* pollStatuses(id, caller.client, finished)
      assert.strictEqual(seen.at(-1), "COMPLETED")
      // what a poller can see, in this order (a fast engine may move past RUNNING between two reads)
      assert.includeDeepMembers(["PENDING", "RUNNING", "COMPLETED"], seen)
      assert.deepStrictEqual(seen, ["PENDING", "RUNNING", "COMPLETED"].filter((status) => seen.includes(status)))

      const job = yield* getJob(id, caller.client)
      assert.match(job.fine_tuned_model_id!, uuid)
      // the log as sent: a bare array of {level, message, timestamp}
      const logged = yield* request("GET", `/v4/fine-tuning-jobs/${id}/events`, { key: caller.key })
      assert.strictEqual(logged.status, 200)
      const events = logged.body as Array<{ level: string; message: string; timestamp: number }>
      assert.deepStrictEqual(events.map((event) => event.message), [
        "Fine-tuning job created, waiting for a trainer",
        `Training started (simulated): 2 epochs of 100 steps, base model base-1, training dataset ${job.training_dataset_id}`,
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
      assert.strictEqual((yield* eventsOf(id, caller.client)).length, 5)
    }))

  it.effect("a fine_tuned_model_id given at create is kept; without hyperparameters a job runs 3 epochs", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { fine_tuned_model_id: "my-model" })
      yield* pollStatuses(id, caller.client, finished)
      const job = yield* getJob(id, caller.client)
      assert.strictEqual(job.status, "COMPLETED")
      assert.strictEqual(job.fine_tuned_model_id, "my-model")
      const epochs = (yield* eventsOf(id, caller.client)).filter((event) => event.message.startsWith("Epoch "))
      assert.strictEqual(epochs.length, 3)
    }))

  it.effect("DELETE of a finished job deletes it and its log: 404 after; another account's job or log is a 404", () =>
    Effect.gen(function*() {
      const alice = yield* provision()
      const bob = yield* provision()
      const id = yield* createJob(alice)
      yield* pollStatuses(id, alice.client, finished)

      const foreignEvents = yield* request("GET", `/v4/fine-tuning-jobs/${id}/events`, { key: bob.key })
      assert.strictEqual(foreignEvents.status, 404)
      assert.deepStrictEqual(foreignEvents.body, { detail: `Fine-tuning job ${id} not found` })
      const remove = (client: Client) => client.fineTuningJobs.delete({ path: { fine_tuning_job_id: id } })
      assert.strictEqual((yield* Effect.flip(remove(bob.client)))._tag, "NotFound")
      assert.strictEqual((yield* request("DELETE", `/v4/fine-tuning-jobs/${id}`)).status, 401)
      assert.strictEqual((yield* getJob(id, alice.client)).status, "COMPLETED")

      const deleted = yield* remove(alice.client)
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      assert.strictEqual((yield* Effect.flip(getJob(id, alice.client)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(eventsOf(id, alice.client)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(remove(alice.client)))._tag, "NotFound")
      assert.strictEqual((yield* alice.client.fineTuningJobs.list({ urlParams: {} })).total_item_count, 0)
    }))
})


layer(timedServer(0.5))("fine-tuning job lifecycle, timed progression", (it) => {
  it.effect("a poller sees PENDING, RUNNING and COMPLETED, each for its simulated steps", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 1 } } })
      const seen = yield* pollStatuses(id, caller.client, finished)
      assert.deepStrictEqual(seen, ["PENDING", "RUNNING", "COMPLETED"])
    }))

  it.effect("DELETE of a RUNNING job cancels it: CANCELED at once, kept with its log, and no epoch is logged after", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller, { vendor_configuration: { vendor: "LAUNCH", hyperparameters: { n_epochs: 5 } } })
      yield* pollStatuses(id, caller.client, (status) => status !== "PENDING")
      const deleted = yield* caller.client.fineTuningJobs.delete({ path: { fine_tuning_job_id: id } })
      assert.deepStrictEqual({ ...deleted }, { count: 1, success: true })
      const job = yield* getJob(id, caller.client)
      assert.strictEqual(job.status, "CANCELED")
      assert.strictEqual(job.fine_tuned_model_id, null)
      const atCancel = yield* eventsOf(id, caller.client)
      assert.deepStrictEqual(atCancel.at(-1), { ...atCancel.at(-1)!, level: "warning", message: "Fine-tuning job canceled" })
      // the epochs' steps would have gone on: nothing is logged or moved after the cancel
      yield* live(2500)
      assert.deepStrictEqual(yield* eventsOf(id, caller.client), atCancel)
      assert.strictEqual((yield* getJob(id, caller.client)).status, "CANCELED")
    }))

  it.effect("DELETE of a PENDING job cancels it before it starts", () =>
    Effect.gen(function*() {
      const caller = yield* provision()
      const id = yield* createJob(caller)
      yield* caller.client.fineTuningJobs.delete({ path: { fine_tuning_job_id: id } })
      yield* live(1500)
      assert.strictEqual((yield* getJob(id, caller.client)).status, "CANCELED")
      assert.deepStrictEqual((yield* eventsOf(id, caller.client)).map((event) => event.message), [
        "Fine-tuning job created, waiting for a trainer",
        "Fine-tuning job canceled"
      ])
    }))
})
