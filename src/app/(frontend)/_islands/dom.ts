/**
 * Small DOM helpers for the islands: the public pages' only script (docs/PUBLIC_PAGES.md). No
 * framework: each island finds its elements by a data attribute the server rendered, and writes text
 * with textContent only.
 */

/** Every element marked `data-island="<name>"` on the page. */
export const islands = (name: string): HTMLElement[] =>
  Array.from(document.querySelectorAll<HTMLElement>(`[data-island="${name}"]`))

/** An element with the given class names and text (as text, never as HTML). */
export const element = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; attributes?: Record<string, string> } = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag)
  if (props.className) node.className = props.className
  if (props.text !== undefined) node.textContent = props.text
  for (const [name, value] of Object.entries(props.attributes ?? {})) node.setAttribute(name, value)
  node.append(...children)
  return node
}

/** GET a same-origin JSON answer; null when the request fails or does not answer 2xx with JSON. */
export const getJson = async <T>(url: string): Promise<T | null> => {
  try {
    const response = await fetch(url, {
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json' },
    })
    return response.ok ? ((await response.json()) as T) : null
  } catch {
    return null
  }
}

/** The signed-in account (`/api/users/me`, the session cookie), asked once per page load. */
type Me = { id: number; email: string } | null
let me: Promise<Me> | undefined
export const currentAccount = (): Promise<Me> => {
  me ??= getJson<{ user?: { id?: number; email?: string } | null }>('/api/users/me').then((body) =>
    body?.user?.id && body.user.email ? { id: body.user.id, email: body.user.email } : null,
  )
  return me
}
/** Forget the answer: the page came back from the back-forward cache, and the session may have changed. */
export const forgetAccount = () => {
  me = undefined
}
