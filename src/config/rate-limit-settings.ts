import * as p from './parsers.ts'
import { setting } from './setting.ts'

/**
 * The request budgets of the HTTP API, each a minute's sliding window shared by every process
 * (src/http/rate-limit.ts counts them): secret keys, public keys, a public key's share per client
 * address, a sign-up form's posts per address, and requests without a valid key.
 */
export const RATE_LIMIT_SETTINGS = [
  setting({
    key: 'rateLimitPerMinute',
    description: 'Secret-key API requests per minute per project (a project may override it)',
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 1000,
  }),
  setting({
    key: 'trackRateLimitPerMinute',
    description: 'Public-key requests (POST /v1/track) per minute per project, a budget apart from its secret-key one',
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 1000,
  }),
  setting({
    key: 'trackRateLimitPerAddressPerMinute',
    description: "Public-key requests per minute per project from one client address (an IPv6 /64): its share of the project's public-key budget",
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 120,
  }),
  setting({
    key: 'formRateLimitPerAddressPerMinute',
    description: 'Posts of one sign-up form per minute from one client address (an IPv6 /64); more are answered 429',
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 10,
  }),
  setting({
    key: 'unauthenticatedRateLimitPerMinute',
    description: 'API requests per minute from one client address whose key is missing, malformed, unknown or revoked (then 429)',
    allowed: 'an integer from 1 to 10000000',
    parse: p.integer(1, 10_000_000),
    fallback: () => 60,
  }),
] as const
