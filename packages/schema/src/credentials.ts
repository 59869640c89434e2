/** Credentials: resources and request bodies (spec parts 2 and 4). */
export {}
