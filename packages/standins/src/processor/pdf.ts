/**
 * A one-page PDF of text lines, written by hand (PDF 1.4: catalog, pages, page, Helvetica, one
 * uncompressed content stream, a cross-reference table with the objects' byte offsets). Enough for a
 * PDF reader to open and for a test to find the text in; no layout beyond one line after another.
 */

/** WinAnsiEncoding's codes for the characters outside Latin-1 that invoices use. */
const WIN_ANSI: Record<string, number> = {
  '€': 0x80,
  '‚': 0x82,
  '„': 0x84,
  '…': 0x85,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
}

/** A PDF literal string in WinAnsi: `(`, `)` and `\` escaped, non-ASCII bytes as octal escapes; the rest `?`. */
const literal = (text: string): string => {
  let out = '('
  for (const char of text.normalize('NFC')) {
    const code = char.codePointAt(0) ?? 0x3f
    const byte = WIN_ANSI[char] ?? (code <= 0xff && (code < 0x80 || code >= 0xa0) ? code : 0x3f)
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`
    else if (byte < 0x20 || byte > 0x7e) out += `\\${byte.toString(8).padStart(3, '0')}`
    else out += String.fromCharCode(byte)
  }
  return `${out})`
}

const TOP = 800
const LEFT = 50

/** The first line is the title (16 pt); the others follow at 11 pt, 15 pt apart. */
export const textPdf = (lines: string[]): Buffer => {
  const [title = '', ...body] = lines
  const content = [
    `BT /F1 16 Tf ${LEFT} ${TOP} Td ${literal(title)} Tj ET`,
    `BT /F1 11 Tf 15 TL ${LEFT} ${TOP - 30} Td`,
    ...body.map((line) => `${literal(line)} Tj T*`),
    'ET',
  ].join('\n')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
  ]
  // Everything written is ASCII, so string lengths are byte offsets.
  let pdf = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((body, index) => {
    offsets.push(pdf.length)
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = pdf.length
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(pdf, 'latin1')
}
