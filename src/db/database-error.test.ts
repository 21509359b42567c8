import { describe, expect, test } from 'bun:test'
import { isDeadlock, isUnavailable } from './database-error.ts'

describe('isUnavailable: the database did not answer, and what failed for that may be tried again', () => {
  test.each([
    ['a connection pg lost', new Error('Connection terminated unexpectedly')],
    ['a client pg knows to be broken', new Error('Client has encountered a connection error and is not queryable')],
    ['no connection within the pool\'s time', new Error('timeout exceeded when trying to connect')],
    ['a reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a refusal', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['PostgreSQL shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['PostgreSQL starting', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['a connection exception', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['SQLite\'s file locked', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
  ])('%s is', (_, error) => {
    expect(isUnavailable(error)).toBe(true)
  })

  test.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['a syntax error', Object.assign(new Error('syntax error at or near'), { code: '42601' })],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['nothing', undefined],
  ])('%s is not', (_, error) => {
    expect(isUnavailable(error)).toBe(false)
  })

  test('a deadlock is told by its SQLSTATE', () => {
    expect(isDeadlock(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(true)
    expect(isDeadlock(new Error('deadlock detected'))).toBe(false)
  })
})
