import { ConfigProvider, Layer } from "effect"
import { TestServerLive } from "../../src/testing.js"

/** The suite's server with `env` over the environment (progression, fault rules, the admin key: docs/control-plane.md). */
export const serverWith = (env: Record<string, string>) =>
  TestServerLive.pipe(
    Layer.provide(Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map(Object.entries(env))).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
    ))
  )

/** The suite's server in `timed` progression, each simulated step taking `seconds` (docs/engine.md). */
export const timedServer = (seconds: number) =>
  serverWith({ PLATFORM_PROGRESSION: "timed", PLATFORM_STEP_SECONDS: String(seconds) })
