/**
 * The OpenAI-style front door's handlers (docs/inference-v5.md): v5's chat completions (and their
 * catalogue), completions, responses and generic inference, and v4's beta completions and chat
 * completions, which answer as v5's do (FrontDoor.ts).
 */
import { Effect, Layer } from "effect"
import type { ImplementGroup } from "../../http/groups.js"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../servers/ModelServersRepo.js"
import { catalogue } from "./catalogue.js"
import { FrontDoor } from "./FrontDoor.js"

export const OpenAiInferenceHttp = (group: ImplementGroup) =>
  group("openAiInference", (handlers) =>
    Effect.gen(function*() {
      const door = yield* FrontDoor
      const sources = { deployments: yield* ModelDeploymentsRepo, models: yield* ModelInstancesRepo, servers: yield* ModelServersRepo }
      return handlers
        .handle("chatCompletions", ({ payload }) => door.chatCompletions(payload))
        .handle("models", ({ urlParams }) => catalogue(sources, urlParams))
        .handle("completions", ({ payload }) => door.completions(payload))
        .handle("responses", ({ payload }) => door.responses(payload))
        .handle("inference", ({ payload }) => door.inference(payload))
    })).pipe(Layer.provide([FrontDoor.Default, ModelDeploymentsRepo.Default, ModelInstancesRepo.Default, ModelServersRepo.Default]))

export const BetaInferenceHttp = (group: ImplementGroup) =>
  group("betaInference", (handlers) =>
    Effect.map(FrontDoor, (door) =>
      handlers
        .handle("chatCompletions", ({ payload }) => door.chatCompletions(payload))
        .handle("completions", ({ payload }) => door.completions(payload)))).pipe(Layer.provide(FrontDoor.Default))
