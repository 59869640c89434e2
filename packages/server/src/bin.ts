#!/usr/bin/env node
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ServerLive } from "./main.js"

NodeRuntime.runMain(Layer.launch(ServerLive))
