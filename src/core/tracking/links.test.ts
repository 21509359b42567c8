import { describe, expect, test } from 'bun:test'
import { clickOfToken, decodeEntities, emailOfOpenToken, trackHtml, type TrackOptions } from './links.ts'

const SECRET = 'a-server-secret-of-enough-length-123'
const BASE = 'https://mail.example.org'
const EMAIL = '0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b'
const options: TrackOptions = { emailId: EMAIL, baseUrl: BASE, secret: SECRET, opens: false, clicks: true }

const clicks = (html: string, extra: Partial<TrackOptions> = {}) => trackHtml(html, { ...options, ...extra })

/** The links a tracked HTML now points to, each with the email and URL its token names. */
function followed(html: string) {
  return [...html.matchAll(/\/t\/c\/([^"'\s>]+)/g)].map((m) => clickOfToken(SECRET, m[1]!))
}

describe('click tracking', () => {
  test('an http link of a double-quoted href goes through /t/c/ and its token names the email and URL', () => {
    const html = clicks('<p><a href="http://example.com/welcome">Hi</a></p>')
    expect(html).toMatch(/^<p><a href="https:\/\/mail\.example\.org\/t\/c\/[A-Za-z0-9_-]+-[a-z2-7]{16}">Hi<\/a><\/p>$/)
    expect(followed(html)).toEqual([{ emailId: EMAIL, url: 'http://example.com/welcome' }])
  })

  test('a single-quoted href keeps its quotes', () => {
    const html = clicks("<a href='https://example.com/a'>A</a>")
    expect(html).toMatch(/^<a href='https:\/\/mail\.example\.org\/t\/c\/[^']+'>A<\/a>$/)
    expect(followed(html)[0]!.url).toBe('https://example.com/a')
  })

  test('an unquoted href is rewritten, quoted', () => {
    const html = clicks('<a href=https://example.com/b?x=1 class=link>B</a>')
    expect(html).toMatch(/^<a href="https:\/\/mail\.example\.org\/t\/c\/[^"]+" class=link>B<\/a>$/)
    expect(followed(html)[0]!.url).toBe('https://example.com/b?x=1')
  })

  test('tag and attribute names and the scheme may be in any case', () => {
    const html = clicks('<A HREF="HTTPS://Example.com/C">C</A>')
    expect(html).toMatch(/^<A HREF="https:\/\/mail\.example\.org\/t\/c\/[^"]+">C<\/A>$/)
    expect(followed(html)[0]!.url).toBe('HTTPS://Example.com/C')
  })

  test('other attributes, before and after, are kept as they were', () => {
    const html = clicks('<a class="btn" style="color:red" href="https://example.com/d" target="_blank" data-x=\'1\'>D</a>')
    expect(html).toMatch(/^<a class="btn" style="color:red" href="https:\/\/mail\.example\.org\/t\/c\/[^"]+" target="_blank" data-x='1'>D<\/a>$/)
  })

  test('entities in the href are decoded before signing, so the redirect goes where the browser would', () => {
    const html = clicks('<a href="https://example.com/e?a=1&amp;b=2&#38;c=3&#x26;d=4&amp;copy=5">E</a>')
    expect(followed(html)[0]!.url).toBe('https://example.com/e?a=1&b=2&c=3&d=4&copy=5')
  })

  test('white space around the URL is not part of it', () => {
    expect(followed(clicks('<a href="  https://example.com/f \n">F</a>'))[0]!.url).toBe('https://example.com/f')
  })

  test('every link is rewritten, each with its own URL, and the text around them is untouched', () => {
    const html = clicks('<h1>Hi</h1>\n<a href="https://example.com/1">1</a> and <a\nhref="https://example.com/2">2</a>')
    expect(followed(html).map((c) => c!.url)).toEqual(['https://example.com/1', 'https://example.com/2'])
    expect(html.startsWith('<h1>Hi</h1>\n<a href="')).toBe(true)
    expect(html).toContain('</a> and <a\nhref="https://mail.example.org/t/c/')
  })

  test('a URL with characters beyond ASCII comes back exactly', () => {
    expect(followed(clicks('<a href="https://example.com/straße?q=ü">G</a>'))[0]!.url).toBe('https://example.com/straße?q=ü')
  })

  test.each([
    ['mailto:', '<a href="mailto:help@example.com">mail</a>'],
    ['tel:', '<a href="tel:+15551234">call</a>'],
    ['an anchor', '<a href="#top">top</a>'],
    ['a path', '<a href="/account">account</a>'],
    ['a relative file', '<a href="page.html">page</a>'],
    ['a protocol-relative link', '<a href="//example.com/x">x</a>'],
    ['javascript:', '<a href="javascript:alert(1)">x</a>'],
    ['an http URL that does not parse', '<a href="http://">broken</a>'],
    ['an empty href', '<a href="">empty</a>'],
    ['an href without a value', '<a href>bare</a>'],
    ['an a without href', '<a name="top">top</a>'],
    ['another attribute ending in href', '<a data-href="https://example.com/x">x</a>'],
    ['href= inside another attribute\'s value', '<a title="see href=https://example.com/x">x</a>'],
    ['a tag that only starts with a', '<abbr href="https://example.com/x">x</abbr><area href="https://example.com/y">'],
    ['an href in text', '<p>href="https://example.com/x"</p>'],
  ])('leaves %s alone', (_, html) => {
    expect(clicks(html)).toBe(html)
  })

  test('a link for which skip says so is left alone, and skip sees the decoded URL', () => {
    const seen: string[] = []
    const skip = (url: string) => (seen.push(url), url.startsWith(`${BASE}/unsubscribe/`))
    const html = clicks(`<a href="${BASE}/unsubscribe/abc?x=1&amp;y=2">Unsubscribe</a> <a href="https://example.com/h">H</a>`, { skip })
    expect(html).toStartWith(`<a href="${BASE}/unsubscribe/abc?x=1&amp;y=2">Unsubscribe</a> <a href="${BASE}/t/c/`)
    expect(seen).toEqual([`${BASE}/unsubscribe/abc?x=1&y=2`, 'https://example.com/h'])
  })

  test('a > inside a quoted attribute does not end the tag', () => {
    const html = clicks('<a title="a > b" href="https://example.com/i">I</a>')
    expect(html).toMatch(/^<a title="a > b" href="https:\/\/mail\.example\.org\/t\/c\/[^"]+">I<\/a>$/)
  })

  test('only the first href of a tag counts, as in a browser', () => {
    const html = clicks('<a href="https://example.com/first" href="https://example.com/second">J</a>')
    expect(followed(html).map((c) => c!.url)).toEqual(['https://example.com/first'])
    expect(html).toContain('href="https://example.com/second"')
  })

  test('a quote that never closes makes the rest of the document its value, as in a browser', () => {
    const html = clicks('<a href="https://example.com/m">M</a><a title="oops>N</a><a href="https://example.com/n">')
    expect(followed(html).map((c) => c!.url)).toEqual(['https://example.com/m'])
    expect(html).toEndWith('<a title="oops>N</a><a href="https://example.com/n">')
  })

  test('takes time in proportion to the HTML, however broken its tags', () => {
    const started = performance.now()
    for (const html of ['<a title="'.repeat(200_000), '<a title=x '.repeat(200_000), '<a href="https://example.com/">x</a>'.repeat(20_000)]) clicks(html)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('without clicks, links are left as they are', () => {
    const html = '<a href="https://example.com/k">K</a>'
    expect(trackHtml(html, { ...options, clicks: false })).toBe(html)
  })
})

describe('open tracking', () => {
  const opens = (html: string) => trackHtml(html, { ...options, opens: true, clicks: false })
  const pixelToken = (html: string) => /<img src="https:\/\/mail\.example\.org\/t\/o\/([^"]+)"/.exec(html)?.[1]

  test('a 1×1 image goes just before </body>, and its token names the email', () => {
    const html = opens('<html><body><p>Hi</p></body></html>')
    expect(html).toMatch(/^<html><body><p>Hi<\/p><img src="https:\/\/mail\.example\.org\/t\/o\/[^"]+" width="1" height="1" alt="" style="[^"]+" \/><\/body><\/html>$/)
    expect(emailOfOpenToken(SECRET, pixelToken(html)!)).toBe(EMAIL)
  })

  test('</BODY> is found in any case, and the last one is used', () => {
    const html = opens('<BODY><p>"</body>" in text</p></BODY>')
    expect(html).toMatch(/^<BODY><p>"<\/body>" in text<\/p><img [^>]+\/><\/BODY>$/)
  })

  test('text that changes length in lower case before </body> does not move the image', () => {
    expect(opens('<body>İstanbul</body>')).toMatch(/^<body>İstanbul<img [^>]+\/><\/body>$/)
  })

  test('without a body tag, the image goes at the end', () => {
    expect(opens('<p>Hi</p>')).toMatch(/^<p>Hi<\/p><img src="[^"]+\/t\/o\/[^"]+"[^>]*\/>$/)
  })

  test('there is exactly one image, and links are untouched unless clicks are tracked too', () => {
    const html = opens('<a href="https://example.com/">x</a><body></body>')
    expect(html.match(/<img /g)).toHaveLength(1)
    expect(html).toContain('<a href="https://example.com/">x</a>')
    const both = trackHtml('<a href="https://example.com/">x</a>', { ...options, opens: true, clicks: true })
    expect(both).toMatch(/^<a href="https:\/\/mail\.example\.org\/t\/c\/[^"]+">x<\/a><img src="https:\/\/mail\.example\.org\/t\/o\/[^"]+"/)
  })

  test('neither opens nor clicks: the HTML is returned as it was', () => {
    const html = '<body><a href="https://example.com/">x</a></body>'
    expect(trackHtml(html, { ...options, opens: false, clicks: false })).toBe(html)
  })
})

describe('tracking tokens', () => {
  const clickToken = /\/t\/c\/([^"]+)/.exec(clicks('<a href="https://example.com/l">L</a>'))![1]!
  const openToken = /\/t\/o\/([^"]+)/.exec(trackHtml('', { ...options, opens: true }))![1]!

  test('are URL-safe', () => {
    expect(clickToken).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(openToken).toMatch(/^[a-z0-9-]+$/)
  })

  test.each([
    ['a changed URL', (t: string) => t.replace(/^[A-Za-z0-9_]/, (c) => (c === 'A' ? 'B' : 'A'))],
    ['a changed signature', (t: string) => t.slice(0, -1) + (t.endsWith('a') ? 'b' : 'a')],
    ['no signature', (t: string) => t.slice(0, t.lastIndexOf('-'))],
    ['nothing', () => ''],
  ])('a click token with %s does not verify', (_, alter) => {
    expect(clickOfToken(SECRET, alter(clickToken))).toBeUndefined()
  })

  test('an open token with a changed email id does not verify', () => {
    expect(emailOfOpenToken(SECRET, openToken.replace('0193', '0194'))).toBeUndefined()
  })

  test('a token does not verify with another secret, nor as the other kind', () => {
    expect(clickOfToken('another-secret-of-enough-length-4567', clickToken)).toBeUndefined()
    expect(emailOfOpenToken('another-secret-of-enough-length-4567', openToken)).toBeUndefined()
    expect(clickOfToken(SECRET, openToken)).toBeUndefined()
    expect(emailOfOpenToken(SECRET, clickToken)).toBeUndefined()
  })
})

describe('decoding character references', () => {
  test.each([
    ['&amp;', '&'],
    ['&AMP;', '&'],
    ['&#38;', '&'],
    ['&#x26;', '&'],
    ['&#X26;', '&'],
    ['&quot;&apos;&lt;&gt;', `"'<>`],
    ['a&amp', 'a&'],
    ['a&amp/b', 'a&/b'],
    ['a&ampb', 'a&ampb'],
    ['?a=1&copy=2', '?a=1&copy=2'],
    ['?a=1&amp=2', '?a=1&amp=2'],
    ['&unknown;', '&unknown;'],
    ['&#0;', '\uFFFD'],
    ['&#xD800;', '\uFFFD'],
    ['&#128512;', '😀'],
    ['&#99999999999;', '\uFFFD'],
  ])('%s in an attribute reads as %s', (text, decoded) => {
    expect(decodeEntities(text)).toBe(decoded)
  })
})
