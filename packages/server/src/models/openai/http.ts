/**
 * The OpenAI-style front door's handlers (docs/inference-v5.md): v5's chat completions (and their
 * catalogue), completions, responses and generic inference, and v4's beta completions and chat
 * completions, which answer as v5's do (FrontDoor.ts). Every failure is answered in OpenAI's shape
 * beside the kit's `detail` (errors.ts), the key check's too (`OpenAiAuthenticationLive`).
 */
import { Effect, Layer } from "effect"
import type { ImplementGroup } from "../../http/groups.js"
import { ModelDeploymentsRepo } from "../deployments/ModelDeploymentsRepo.js"
import { ModelInstancesRepo } from "../registry/ModelInstancesRepo.js"
import { ModelServersRepo } from "../servers/ModelServersRepo.js"
import { catalogue } from "./catalogue.js"
import { openAiErrors, OpenAiAuthenticationLive } from "./errors.js"
import { FrontDoor } from "./FrontDoor.js"

export const OpenAiInferenceHttp = (group: ImplementGroup) =>
  group("openAiInference", (handlers) =>
    Effect.gen(function*() {
      const door = yield* FrontDoor
      const sources = { deployments: yield* ModelDeploymentsRepo, models: yield* ModelInstancesRepo, servers: yield* ModelServersRepo }
      return handlers
        .handle("chatCompletions", ({ payload }) => openAiErrors(door.chatCompletions(payload)))
        .handle("models", ({ urlParams }) => openAiErrors(catalogue(sources, urlParams)))
        .handle("completions", ({ payload }) => openAiErrors(door.completions(payload)))
        .handle("responses", ({ payload }) => openAiErrors(door.responses(payload)))
        .handle("inference", ({ payload }) => openAiErrors(door.inference(payload)))
    })).pipe(Layer.provide([
      FrontDoor.Default,
      ModelDeploymentsRepo.Default,
      ModelInstancesRepo.Default,
      ModelServersRepo.Default,
      OpenAiAuthenticationLive
    ]))

export const BetaInferenceHttp = (group: ImplementGroup) =>
  group("betaInference", (handlers) =>
    Effect.map(FrontDoor, (door) =>
      handlers
        .handle("chatCompletions", ({ payload }) => openAiErrors(door.chatCompletions(payload)))
        .handle("completions", ({ payload }) => openAiErrors(door.completions(payload))))).pipe(
      Layer.provide([FrontDoor.Default, OpenAiAuthenticationLive])
    )
