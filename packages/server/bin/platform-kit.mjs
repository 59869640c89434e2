#!/usr/bin/env node
// `npx platform-kit …`: the admin CLI (src/admin/bin.ts), run from source through tsx as `npm start` runs the server.
import { register } from "tsx/esm/api"

register()
await import("../src/admin/bin.ts")
