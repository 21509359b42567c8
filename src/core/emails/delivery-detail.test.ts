import { describe, expect, test } from 'bun:test'
import { signingDomains } from './delivery-detail.ts'

describe('the domains an email was signed for', () => {
  test('are the d= tags of its DKIM-Signature headers, each once', () => {
    const headers = [
      'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=Sender.example.com;\r\n s=ms1; t=1; h=from:to; bh=x; b=y',
      'DKIM-Signature: v=1; a=ed25519-sha256; c=relaxed/relaxed; d=sender.example.com; s=ms2; bh=x; b=z',
    ].join('\r\n')
    expect(signingDomains(headers)).toEqual(['sender.example.com'])
  })

  test('are none before the first attempt signed it', () => {
    expect(signingDomains(null)).toEqual([])
  })
})
