#!/usr/bin/env node
// `platform-kit-server`: the standalone server (src/bin.ts), configured by the environment
// (README "Standalone server"); see launch.mjs for what runs.
import { launch } from "./launch.mjs"

await launch("bin")
