import { describe, expect, test } from 'bun:test'
import { previewDocument, previewPolicy } from './preview.ts'

describe('previewDocument', () => {
  test('puts the charset and a new-tab base before the markup', () => {
    expect(previewDocument('<p>Hi</p>')).toBe('<meta charset="utf-8"><base target="_blank"><p>Hi</p>')
  })

  test('after a doctype, in any case and with spaces before it', () => {
    expect(previewDocument('\n <!doctype html>\n<html><body>x</body></html>')).toBe('\n <!doctype html><meta charset="utf-8"><base target="_blank">\n<html><body>x</body></html>')
    expect(previewDocument('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x.dtd"><html></html>')).toStartWith('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x.dtd"><meta charset="utf-8">')
  })
})

describe('previewPolicy', () => {
  test('sandboxed without scripts, forms or its origin; remote images only when asked', () => {
    const off = previewPolicy(false)
    expect(off).toStartWith('sandbox allow-popups allow-popups-to-escape-sandbox;')
    expect(off).not.toMatch(/allow-scripts|allow-same-origin|allow-forms|allow-top-navigation/)
    expect(off).toContain('img-src data:;')
    expect(previewPolicy(true)).toContain('img-src data: http: https:;')
  })
})
