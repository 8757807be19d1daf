import escapeHtml from 'escape-html'

/** Tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
}

type Interpolation = string | number | Html | null | undefined | Interpolation[]

const render = (value: Interpolation): string => {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.map(render).join('')
  if (value instanceof Html) return value.value
  return escapeHtml(String(value))
}

export const html = (strings: TemplateStringsArray, ...values: Interpolation[]): Html =>
  new Html(
    strings.reduce((out, string, index) => out + string + (index < values.length ? render(values[index]) : ''), ''),
  )

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1a1f36; }
  .banner { background: #fff4e5; border: 1px solid #f5a623; padding: .5rem 1rem; font-size: .9rem; }
  .error { background: #fde8e8; border: 1px solid #e25950; padding: .5rem 1rem; }
  .notice { background: #e6f6ec; border: 1px solid #3ba55c; padding: .5rem 1rem; }
  table { width: 100%; border-collapse: collapse; } td, th { padding: .4rem; border-bottom: 1px solid #e3e8ee; text-align: left; }
  label { display: block; margin: 1rem 0 .25rem; } input[type=email] { width: 100%; padding: .5rem; }
  fieldset { margin: 1rem 0; } button { padding: .5rem 1.5rem; margin-top: 1rem; } .total { font-size: 1.3rem; }
`

/** Every hosted page says it is the stand-in, so nobody mistakes it for the real processor. */
export const page = (title: string, body: Html): string =>
  html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title><style>${new Html(STYLE)}</style></head>
<body>
<p class="banner">Payment processor stand-in: no real money moves here.</p>
${body}
</body>
</html>
`.value
