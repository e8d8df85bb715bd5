/**
 * Credential lifetimes, fixed (docs/authentication.md) and not configurable: the client
 * secret enrols (72 h), the access token works for 7 days, the refresh token never expires and
 * is the long-lived credential (docs/authentication.md). Every expiry check reads an injected clock so
 * tests can move time: `now >= expiresAt` means expired.
 */

export const CLIENT_SECRET_LIFETIME_MS = 72 * 3600 * 1000;
export const ACCESS_TOKEN_LIFETIME_SECONDS = 7 * 24 * 3600; // 604800, the token response's expires_in
export const ACCESS_TOKEN_LIFETIME_MS = ACCESS_TOKEN_LIFETIME_SECONDS * 1000;

/** Milliseconds since the epoch; `Date.now` in production, a movable value in tests. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();
