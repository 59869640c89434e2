import { ConfigProvider, Layer } from "effect"
import { TestServerLive } from "../../src/testing.js"

/** The suite's server in `timed` progression, each simulated step taking `seconds` (docs/engine.md). */
export const timedServer = (seconds: number) =>
  TestServerLive.pipe(
    Layer.provide(Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["PLATFORM_PROGRESSION", "timed"], ["PLATFORM_STEP_SECONDS", String(seconds)]])).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv())
      )
    ))
  )
