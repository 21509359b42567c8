import { describe, expect, test } from 'bun:test'
import { headerSection, originalOf } from './original.ts'

const of = (text: string) => originalOf(Buffer.from(text))

describe('originalOf', () => {
  test('reads Message-ID, the Return-Path without brackets and the To addresses lower-cased', async () => {
    const headers = [
      'Return-Path: <bounces+1a2b-k3m7q2xvnrt4wz6a@mst.sender.example.com>',
      'Message-ID: <0193a1b2-7c4d@sender.example.com>',
      'From: Sender <Hello@Sender.Example.com>',
      'To: "Doe, Jane" <Jane.Doe@Example.org>, team: b@x.example, B@X.example;, undisclosed-recipients:;',
      '',
      'Body text that is not read',
    ].join('\r\n')
    expect(await of(headers)).toEqual({
      messageId: '<0193a1b2-7c4d@sender.example.com>',
      returnPath: 'bounces+1a2b-k3m7q2xvnrt4wz6a@mst.sender.example.com',
      to: ['jane.doe@example.org', 'b@x.example'],
      fromDomain: 'sender.example.com',
    })
  })

  test('a Return-Path without brackets, as Exchange returns it, and a folded Message-ID', async () => {
    expect(await of('Return-Path: bounces+1a2e-h4q7rx2bmw6ztc3n@mst.sender.example.com\nMessage-ID:\n <x@y.example>\n')).toEqual({
      messageId: '<x@y.example>',
      returnPath: 'bounces+1a2e-h4q7rx2bmw6ztc3n@mst.sender.example.com',
      to: [],
      fromDomain: null,
    })
  })

  test('Cc addresses count with the To addresses', async () => {
    expect((await of('To: a@x.example\r\nCc: B@Y.example, a@x.example\r\n\r\n')).to).toEqual(['a@x.example', 'b@y.example'])
  })

  test('raw UTF-8 header values are read as UTF-8', async () => {
    expect((await of('To: Jörg Müller <Jörg@Exämple.example>\r\n\r\n')).to).toEqual(['jörg@exämple.example'])
  })

  test("the From domain is the first From address's, in ASCII: whose mail it was", async () => {
    expect((await of('From: a@Exämple.example, b@other.example\r\n\r\n')).fromDomain).toBe('xn--exmple-cua.example')
    expect((await of('From: "Ada" <ada@sender.example.com>\r\n\r\n')).fromDomain).toBe('sender.example.com')
    expect((await of('From: undisclosed\r\n\r\n')).fromDomain).toBeNull()
  })

  test('an empty Return-Path (<>) and absent headers give null and nothing', async () => {
    expect(await of('Return-Path: <>\r\nSubject: hi\r\n\r\n')).toEqual({ messageId: null, returnPath: null, to: [], fromDomain: null })
    expect(await of('')).toEqual({ messageId: null, returnPath: null, to: [], fromDomain: null })
  })

  test('headers in the body are not taken for the original', async () => {
    expect((await of('Subject: hi\r\n\r\nMessage-ID: <body@example.com>\r\n')).messageId).toBeNull()
  })
})

describe('headerSection', () => {
  test.each([
    ['A: 1\r\nB: 2\r\n\r\nbody\r\n\r\nmore', 'A: 1\r\nB: 2\r\n\r\n'],
    ['A: 1\nB: 2\n\nbody', 'A: 1\nB: 2\n\n'],
    ['A: 1\r\nB: 2\r\n', 'A: 1\r\nB: 2\r\n'],
  ])('%p -> %p', (message, expected) => {
    expect(headerSection(Buffer.from(message)).toString()).toBe(expected)
  })
})
