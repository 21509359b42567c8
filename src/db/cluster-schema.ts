/** A singleton's lease: held by `owner` (a process) until `expires_at` unless renewed. */
export interface LeaseTable {
  name: string
  owner: string
  expires_at: number
}
