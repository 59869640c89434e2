export * from "./paging.js"
export * from "./PlatformClient.js"
