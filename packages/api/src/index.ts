export * from "./Api.js"
export * from "./HealthApi.js"
export * from "./ModelGroupsApi.js"
export * from "./security.js"
