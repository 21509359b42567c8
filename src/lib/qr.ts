import QRCode from 'qrcode'

/**
 * A QR code of `text` as an SVG document (black modules on white, a quiet zone of 2): made on the
 * server, so that the console shows it as an image and bundles no QR library.
 */
export const qrSvg = (text: string): Promise<string> => QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
