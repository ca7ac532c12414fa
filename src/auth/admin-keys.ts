/**
 * Keys of the admin surface's sign-in sessions (src/auth/admin-session-store.ts):
 *
 *   <keyPrefix>:admin:session:<id>   STRING  the session's form token, EX 8 h: a person signed in on the status page
 *
 * (The admin surface's failed-authentication counters are in auth-failure-keys.ts.)
 */
export class AdminKeys {
  constructor(private readonly keyPrefix: string) {}
  session(id: string): string { return `${this.keyPrefix}:admin:session:${id}`; }
}
