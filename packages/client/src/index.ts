export * from "./paging.js"
export * from "./PlatformClient.js"
export * from "./retry.js"
export * from "./streams.js"
