/**
 * Partial matching of JSON values, as the agentex filters read: a task's `task_metadata` filter
 * (containment, as PostgreSQL's `@>` on jsonb) and a message filter's `content`.
 */

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether `value` contains `pattern`: every member of an object pattern is contained in the
 * value's member of that name (own members only); an array pattern's every element is contained
 * in some element of the value's array; anything else is equal.
 */
export const contains = (value: unknown, pattern: unknown): boolean => {
  if (isObject(pattern)) {
    return isObject(value) &&
      Object.keys(pattern).every((key) => Object.hasOwn(value, key) && contains(value[key], pattern[key]))
  }
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && pattern.every((wanted) => value.some((element) => contains(element, wanted)))
  }
  return value === pattern
}
