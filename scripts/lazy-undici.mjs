/**
 * Stands in for `undici` in the server bundle (scripts/build.mjs): `@effect/platform-node`
 * imports undici for its HTTP client, which the server does not use, from the module of its HTTP
 * server. undici (bundled, as CommonJS) is loaded and run here only on first use of what the
 * platform's own code takes from it.
 */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
let undici
const load = () => (undici ??= require("undici"))

export class Agent {
  constructor(...args) {
    const Real = load().Agent
    return new Real(...args)
  }
}

export const getGlobalDispatcher = () => load().getGlobalDispatcher()

export default new Proxy({}, { get: (_, key) => load()[key] })
