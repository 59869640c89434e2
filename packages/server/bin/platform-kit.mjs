#!/usr/bin/env node
// `platform-kit …`: the admin CLI (src/admin/bin.ts); see launch.mjs for what runs.
import { launch } from "./launch.mjs"

await launch("admin/bin")
