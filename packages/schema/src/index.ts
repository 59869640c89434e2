export * from "./common.js"
export * from "./errors.js"
export * from "./model-groups.js"
