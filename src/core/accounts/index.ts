// The public surface of accounts: what code outside src/core/accounts/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './accounts.service.ts'
export * from './invitations.service.ts'
export * from './members.service.ts'
export * from './password.ts'
export * from './reauthenticate.ts'
export * from './roles.ts'
export * from './sessions.service.ts'
export * from './setup.ts'
export * from './sign-in.ts'
export * from './tokens.ts'
export * from './totp.service.ts'
export * from './invitation-mail.ts'
