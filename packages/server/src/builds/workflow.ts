/**
 * The lifecycle of a build, a durable workflow (docs/builds.md, docs/engine.md): `queued`, then
 * after a simulated step `running` (its start time and a log line), after another the builder runs
 * (`ImageBuilder`: the simulated one reads the context and walks its Dockerfile), its lines
 * written as they come, and the build ends `success` or `failed` with its end time. Every change
 * moves the build only from the status it expects, in one transaction holding its row: a step run
 * again moves nothing, and a build cancelled meanwhile ends the workflow (a builder running stops
 * at its next lines). However it ends (success, failed, cancelled, never started), its last step
 * removes the build's context from the store: a build that has ended keeps no archive.
 */
import { Activity, Workflow } from "@effect/workflow"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { type FamilyWorkflows, LifecycleEntity, lifecycleKey } from "../engine/Lifecycles.js"
import { simulatedStep } from "../engine/simulatedStep.js"
import { startOnBoot } from "../engine/startOnBoot.js"
import { SecretBox } from "../credentials/SecretBox.js"
import { BuildsRepo, contextObject, openArgs, type StoredBuild } from "./BuildsRepo.js"
import { ImageBuilder, SimulatedImageBuilder } from "./ImageBuilder.js"

export const BuildLifecycle = Workflow.make({
  name: "ImageBuild",
  payload: LifecycleEntity,
  idempotencyKey: lifecycleKey
})

/** The most lines written in one transaction (a builder's burst is written in such batches). */
const linesPerWrite = 100

/** The build's steps, up to its end (each path that ends it returns). */
const steps = Effect.fn("ImageBuild.steps")(function*(entity: LifecycleEntity) {
  const repo = yield* BuildsRepo
  const builder = yield* ImageBuilder
  const box = yield* SecretBox

  /** Whether the build has ended after `step` (failed, cancelled or gone: the lifecycle ends). */
  const ended = (step: Effect.Effect<Option.Option<StoredBuild>>) =>
    Effect.map(step, Option.match({ onNone: () => true, onSome: (build) => build.status !== "queued" && build.status !== "running" }))

  /** The build `failed` from `from` for `reason`; answers whether the lifecycle ends there. */
  const failed = (from: "queued" | "running", reason: string) =>
    Activity.make({
      name: `failed-${from}`,
      success: Schema.Boolean,
      execute: ended(repo.advance(entity, from, (current, now) => ({
        build: { ...current, status: "failed", build_start_time: current.build_start_time ?? now, build_end_time: now },
        lines: [`Build failed: ${reason}`]
      })))
    })

  const queueFault = yield* simulatedStep("queue", "build", entity)
  if (queueFault !== null && (yield* failed("queued", queueFault))) return
  const started = yield* Activity.make({
    name: "start",
    success: Schema.Boolean,
    execute: Effect.map(
      repo.advance(entity, "queued", (queued, now) => ({
        build: { ...queued, status: "running", build_start_time: now },
        lines: [
          `Build ${queued.id} started: ${queued.image_url}`,
          "This is a simulated image build: the build context is read and checked, and its Dockerfile walked through; nothing is pulled, run, built or pushed"
        ]
      })),
      (found) => Option.isSome(found) && found.value.status === "running"
    )
  })
  if (!started) return
  const buildFault = yield* simulatedStep("build", "build", entity)
  if (buildFault !== null && (yield* failed("running", buildFault))) return

  yield* Activity.make({
    name: "build",
    execute: Effect.gen(function*() {
      const found = yield* repo.forBuilder(entity)
      if (Option.isNone(found)) return
      const current = found.value
      const outcome = yield* builder.build({
        build_id: current.id,
        account_id: current.account_id,
        image_name: current.image_name,
        image_tag: current.image_tag,
        image_url: current.image_url,
        build_args: yield* openArgs(box, current),
        context: repo.bucket.stream(contextObject(current.id)),
        context_bytes: current.context_bytes
      }).pipe(
        Stream.rechunk(linesPerWrite),
        Stream.chunks,
        // written while the build runs; a cancel stops the builder (its stream is not pulled further)
        Stream.runForEachWhile((lines) => repo.appendWhileRunning(entity, [...lines])),
        Effect.either
      )
      yield* repo.advance(entity, "running", (running, now) =>
        outcome._tag === "Left"
          ? { build: { ...running, status: "failed", build_end_time: now }, lines: [`Build failed: ${outcome.left.reason}`] }
          : { build: { ...running, status: "success", build_end_time: now }, lines: [`Successfully built ${running.image_url} (simulated)`] })
    })
  })
})

const build = Effect.fn("ImageBuild")(function*(entity: LifecycleEntity) {
  yield* steps(entity)
  // the build has ended (or was gone): its context is of no more use
  yield* Activity.make({ name: "remove-context", execute: Effect.flatMap(BuildsRepo, (repo) => repo.removeContext(entity.id)) })
})

/** The workflow, and the start of every build with work left when the engine starts. Needs `BuildsRepo`, `ImageBuilder`, `Simulation`, `SecretBox`. */
export const BuildLifecycleLive = startOnBoot(
  "builds",
  Effect.flatMap(BuildsRepo, (repo) => repo.unfinished),
  (entity) => BuildLifecycle.execute(entity, { discard: true })
).pipe(Layer.provideMerge(BuildLifecycle.toLayer((entity) => build(entity))))

/** The family's workflows, for the engine (../workflows.ts); the builder is the simulated one (ImageBuilder.ts). Needs the application's `SecretBox`. */
export const BuildsWorkflows = {
  workflows: { ImageBuild: BuildLifecycle },
  layer: BuildLifecycleLive.pipe(Layer.provide([BuildsRepo.Default, SimulatedImageBuilder]))
} satisfies FamilyWorkflows
