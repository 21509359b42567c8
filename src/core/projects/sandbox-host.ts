/**
 * The name that stands for the sandbox's receiving server where a real attempt names the MX host,
 * and the host of its mail's return paths, where its complaints are sent.
 */
export const SANDBOX_HOST = 'sandbox.mailstead.invalid'
