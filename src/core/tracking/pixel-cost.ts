import { decodeEntities } from './links.ts'

/*
 * When an open pixel costs spam points. SpamAssassin's HTML_IMAGE_ONLY_04 to _32 fire on HTML that
 * has an <img> and at most 3,200 bytes of text: 1 to 2.8 points (1.0 to 2.0 with network tests),
 * measured at 2.0 on a campaign letter of normal length whose only image was the pixel. HTML that
 * already has an image of its own pays that price with or without the pixel.
 */

/** The most text (UTF-8 bytes) for which SpamAssassin counts an image against HTML. */
export const IMAGE_ONLY_TEXT_BYTES = 3200

/** Roughly the text SpamAssassin measures: what a reader sees, white space collapsed. */
export function visibleTextBytes(html: string): number {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
  return Buffer.byteLength(decodeEntities(text).replace(/\s+/g, ' ').trim(), 'utf8')
}

/** Whether adding the pixel to this HTML makes it an "image only" message it was not before. */
export const pixelCostsPoints = (html: string) => !/<img\b/i.test(html) && visibleTextBytes(html) <= IMAGE_ONLY_TEXT_BYTES
