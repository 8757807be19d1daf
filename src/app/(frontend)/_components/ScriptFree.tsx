/**
 * Marks the page as one the host sends without Next's runtime (src/server/script-free.ts,
 * docs/PUBLIC_PAGES.md): nothing on it needs React in the browser, only the islands script. React puts
 * the tag in the head.
 */
export const ScriptFree = () => <meta name="script-free" content="islands" />
