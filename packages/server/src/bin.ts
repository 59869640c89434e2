#!/usr/bin/env node
/**
 * The standalone server (docs/operations.md): V8's allocation-site pretenuring off, then the
 * program (`program.ts`), loaded only once the flag is set.
 *
 * With pretenuring on, V8 soon allocates some of Effect's per-call objects (a fiber suspended in
 * `Effect.async` is one) straight in the old generation. Each request's young objects are then
 * referenced from old ones that die with the request but are only collected by a full collection:
 * every scavenge keeps and promotes the request graphs they point to. A POST that waits for its
 * body, a model call, made every scavenge copy 1–3 MB and take 4–8 ms; without pretenuring those
 * graphs die young (docs/benchmarks.md "Pretenuring off"). V8 decides at its
 * collections and keeps what it has decided, so the flag is set before any of the server's code
 * runs, in the entry of the bundle (whose chunks run their modules when imported).
 */
import * as V8 from "node:v8"

V8.setFlagsFromString("--no-allocation-site-pretenuring")

await import("./program.js")
