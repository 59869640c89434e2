import { accountForWrite } from "../auth/access.js"

/**
 * The account an agent-task request works in (writes, and reads by name: names are unique per
 * account): `x-selected-account-id`, else the caller's only account (422 on the header for a key
 * of several accounts and no selection), as `POST /events` (docs/events.md).
 */
export const workAccount = accountForWrite(undefined, ["header", "x-selected-account-id"])
