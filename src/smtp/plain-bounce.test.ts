import { describe, expect, test } from 'bun:test'
import { looksLikeBounce, quotedAddresses, splitBounceText } from './plain-bounce.ts'

describe('looksLikeBounce', () => {
  test.each([
    [{ from: 'MAILER-DAEMON@mx.example.net', subject: 'Anything' }, true],
    [{ from: 'postmaster@example.org', subject: undefined }, true],
    [{ from: 'someone@example.org', subject: 'Undelivered Mail Returned to Sender' }, true],
    [{ from: 'someone@example.org', subject: 'Delivery Status Notification (Failure)' }, true],
    [{ from: 'someone@example.org', subject: 'failure notice' }, true],
    [{ from: 'someone@example.org', subject: 'Returned mail: see transcript for details' }, true],
    [{ from: 'someone@example.org', subject: 'Mail delivery failed: returning message to sender' }, true],
    [{ from: 'someone@example.org', subject: 'Undeliverable: Your invoice' }, true],
    [{ from: 'x@example.org', subject: 'x', text: 'Hi. This is the qmail-send program at mx.example.org.\n' }, true],
    [{ from: 'maria@friends.example', subject: 'Lunch on Friday?', text: 'Hi!' }, false],
    [{ from: 'news@shop.example', subject: 'Your delivery is on its way' }, false],
    [{ from: undefined, subject: undefined, text: undefined }, false],
  ])('%p -> %p', (look, expected) => {
    expect(looksLikeBounce({ text: undefined, ...look })).toBe(expected)
  })
})

describe('splitBounceText', () => {
  test("qmail's marker separates the notice from the copy", () => {
    const text = 'Hi. This is the qmail-send program.\n\n<a@x.example>:\nSorry. (#5.1.1)\n\n--- Below this line is a copy of the message.\n\nReturn-Path: <b@y.example>\nTo: a@x.example\n\nBody\n'
    expect(splitBounceText(text)).toEqual({
      notice: 'Hi. This is the qmail-send program.\n\n<a@x.example>:\nSorry. (#5.1.1)',
      copy: 'Return-Path: <b@y.example>\nTo: a@x.example\n\nBody\n',
    })
  })

  test.each([
    '------ This is a copy of the message, including all the headers. ------',
    '   ----- Original message follows -----',
    '----- Original Message -----',
    '   ----- Unsent message below -----',
  ])('the marker %p starts the copy', (marker) => {
    expect(splitBounceText(`Could not deliver.\n\n${marker}\n\nMessage-ID: <m@y.example>\n`)).toEqual({ notice: 'Could not deliver.', copy: 'Message-ID: <m@y.example>\n' })
  })

  test('without a marker, the first quoted header starts the copy', () => {
    expect(splitBounceText('Delivery failed: user unknown.\n\nReceived: from a by b\nMessage-ID: <m@y.example>\n')).toEqual({
      notice: 'Delivery failed: user unknown.',
      copy: 'Received: from a by b\nMessage-ID: <m@y.example>\n',
    })
  })

  test('a bounce that returned nothing is all notice', () => {
    expect(splitBounceText('  Delivery failed: user unknown.\n')).toEqual({ notice: 'Delivery failed: user unknown.', copy: null })
  })
})

describe('quotedAddresses', () => {
  test.each([
    ['qmail', '<ghost@qmail.example.org>:\nSorry, no mailbox here by that name. (#5.1.1)', ['ghost@qmail.example.org']],
    ['sendmail, dots after the address', '552 5.2.2 Alice@Multi.example... Mailbox full', ['alice@multi.example']],
    ['several, each once', 'a@x.example: 550\n<A@X.example>\nb@y.example.', ['a@x.example', 'b@y.example']],
    ['a longer address is not a shorter one', 'jimbob@example.net and bob@example.network', ['jimbob@example.net', 'bob@example.network']],
    ['UTF-8', '<jörg@exämple.example>: unbekannt', ['jörg@exämple.example']],
    ['none', 'Delivery failed: user unknown.', []],
  ])('%s', (_, notice, expected) => {
    expect(quotedAddresses(notice)).toEqual(expected)
  })
})
