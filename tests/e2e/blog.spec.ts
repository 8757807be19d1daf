import { expect, test } from './helpers'
import { base } from './service'

test('read the blog: a post carries BlogPosting JSON-LD and a 1200x630 PNG social image, and is in the feed and the sitemap', async ({
  page,
}) => {
  await page.goto('/blog')
  const firstPost = page.locator('.post-card-title a').first()
  const title = (await firstPost.textContent())?.trim() ?? ''
  await firstPost.click()
  await page.waitForURL(/\/blog\/[a-z0-9-]+$/)
  const url = page.url()
  expect((await page.locator('h1').textContent())?.trim(), "the post page's h1").toBe(title)

  const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}') as Record<
    string,
    unknown
  >
  expect(jsonLd, 'the JSON-LD').toMatchObject({ '@type': 'BlogPosting', headline: title, url })
  const ogImage = (await page.locator('meta[property="og:image"]').getAttribute('content')) ?? ''
  const twitterImage = await page.locator('meta[name="twitter:image"]').getAttribute('content')
  expect(ogImage, 'og:image').not.toBe('')
  expect(twitterImage, 'twitter:image is not og:image').toBe(ogImage)
  expect(new URL(ogImage).pathname, 'the JSON-LD image is not og:image').toBe(new URL(String(jsonLd.image)).pathname)

  const image = await page.request.get(ogImage)
  const png = await image.body()
  expect(image.status(), 'og:image').toBe(200)
  expect(image.headers()['content-type'], "og:image's type").toMatch(/^image\/png/)
  // A PNG starts with its 8-byte signature, then the IHDR chunk: width and height at bytes 16 and 20.
  expect(png.subarray(0, 8).toString('hex'), "og:image's PNG signature").toBe('89504e470d0a1a0a')
  expect([png.readUInt32BE(16), png.readUInt32BE(20)], "og:image's width and height").toEqual([1200, 630])

  const feed = await page.request.get(`${base}/blog/rss.xml`)
  expect((await feed.text()).includes(`<link>${url}</link>`), 'the post is in /blog/rss.xml').toBe(true)
  const sitemap = await page.request.get(`${base}/sitemap.xml`)
  expect((await sitemap.text()).includes(`<loc>${url}</loc>`), 'the post is in /sitemap.xml').toBe(true)
})
