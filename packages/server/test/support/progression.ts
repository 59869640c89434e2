import { ConfigProvider, Effect, Layer } from "effect"
import { TestServerLive } from "../../src/testing.js"
import { s3Bridge, testObjectStore } from "./s3.js"

/**
 * The suite's server with `env` over the environment (progression, fault rules, the admin key:
 * docs/control-plane.md); under `vitest run --mode s3`, its `PLATFORM_OBJECT_STORE_ROOT` served
 * through the S3 backend (support/s3.ts).
 */
export const serverWith = (env: Record<string, string>) =>
  testObjectStore === "s3" && env.PLATFORM_OBJECT_STORE_ROOT !== undefined
    ? Layer.unwrapScoped(Effect.map(s3Bridge(env.PLATFORM_OBJECT_STORE_ROOT), (s3) => serverOn({ ...env, ...s3 })))
    : serverOn(env)

const serverOn = (env: Record<string, string>) =>
  TestServerLive.pipe(
    Layer.provide(Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map(Object.entries(env))).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
    ))
  )

/** The suite's server in `timed` progression, each simulated step taking `seconds` (docs/engine.md). */
export const timedServer = (seconds: number) =>
  serverWith({ PLATFORM_PROGRESSION: "timed", PLATFORM_STEP_SECONDS: String(seconds) })
