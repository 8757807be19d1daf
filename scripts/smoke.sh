#!/usr/bin/env bash
# Production smoke test, after `npm run build`: start `npm start` against a scratch database,
# check /healthz, /readyz, /api/plans, /admin and the content pages, then SIGTERM it and expect a clean exit.
# Usage: SMOKE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/kit_smoke bash scripts/smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

port=${SMOKE_PORT:-3999}
db_url=${SMOKE_DATABASE_URL:?set SMOKE_DATABASE_URL to a scratch database (it is dropped and recreated)}
admin_url="${db_url%/*}/postgres"
db_name="${db_url##*/}"
log=$(mktemp)
media_dir=$(mktemp -d)

# npm start's own Node flags and variables (package.json), through the parser the tests and the bench use.
echo "smoke: the server runs on node $(node -v)"
start_args=$(node --import tsx -e "import('./src/process/start-command.ts').then((m) => console.log(m.startNodeArgs('.').join(' ')))")
start_env=$(node --import tsx -e "import('./src/process/start-command.ts').then((m) => console.log(Object.entries(m.startCommand('.').env).map(([k, v]) => k + '=' + v).join(' ')))")

# Payload's routes and admin take the published instance's config (next.config.mjs, forPhase): the chunks
# they load hold no copy of the config, whose module is the only one that calls buildConfig.
for route in '.next/server/app/(payload)/api/[...slug]/route.js' '.next/server/app/(payload)/admin/[[...segments]]/page.js'; do
  [ -f "$route" ] || { echo "smoke: $route is missing from the build"; exit 1; }
  for chunk in $(grep -o 'server/chunks/[^"]*\.js' "$route"); do
    if grep -q 'buildConfig' ".next/$chunk"; then
      echo "smoke: $route loads .next/$chunk, a copy of the config"
      exit 1
    fi
  done
done
echo "smoke: Payload's routes load no copy of the config"

# Another server on the port would answer in this one's place.
if curl -s -o /dev/null "http://localhost:$port/healthz"; then
  echo "smoke: port $port is taken (SMOKE_PORT moves it)"
  exit 1
fi

psql "$admin_url" -qc "DROP DATABASE IF EXISTS \"$db_name\" WITH (FORCE)" -c "CREATE DATABASE \"$db_name\""

NODE_ENV=production PORT=$port DATABASE_URL="$db_url" SERVER_URL="http://localhost:$port" \
  PAYLOAD_SECRET="smoke-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" SMTP_URL="smtp://127.0.0.1:2525" \
  PUBLIC_PRICE_ID_STANDARD_LIFETIME=price_smoke_standard \
  PAYMENT_SECRET_KEY=sk_test_smoke PAYMENT_WEBHOOK_SECRET=whsec_smoke PUBLIC_PAYMENT_PUBLISHABLE_KEY=pk_test_smoke \
  REPO_ACCESS_TOKEN=smoke-token REPO_OWNER=kit-org REPO_NAME=starter-kit REPO_API_URL=http://127.0.0.1:9 \
  LICENSE_SIGNING_KEY="$(openssl genpkey -algorithm ed25519)" MEDIA_DIR="$media_dir" \
  env $start_env node $start_args dist/server/server.mjs >"$log" 2>&1 &
pid=$!

fail() { echo "smoke: $*"; echo "--- server log"; cat "$log"; kill -9 "$pid" 2>/dev/null || true; exit 1; }
# Any other way out (a command failing under set -e) stops the server too; after an orderly stop this finds none.
trap 'kill -9 "$pid" 2>/dev/null || true' EXIT

for _ in $(seq 1 120); do
  curl -fsS "http://localhost:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || fail "server exited during start-up"
  sleep 1
done

check() { # path, expected status, text the body must contain
  local body status
  body=$(mktemp)
  status=$(curl -sS -o "$body" -w '%{http_code}' "http://localhost:$port$1") || fail "GET $1 failed"
  [ "$status" = "$2" ] || fail "GET $1 answered $status, expected $2"
  grep -q -- "$3" "$body" || fail "GET $1 does not contain '$3'"
  echo "smoke: GET $1 -> $status"
}
check /healthz 200 '"status":"ok"'
check /readyz 200 '"database":"ok"'
check /api/plans 200 '"slug":"standard"'
check /api/plans 200 'price_smoke_standard'
check /admin/create-first-user 200 '<html'
check / 200 'data-plan="ultimate"'
check /pricing 200 'data-plan="standard"'
check /pricing 200 'value="/pricing"'
# The host's page cache (src/server/page-cache.ts) sent that last /pricing again, without Next.
curl -sS -D - -o /dev/null "http://localhost:$port/pricing" | grep -qi '^age: ' || fail "/pricing again did not come from the page cache"
echo "smoke: GET /pricing again -> from the host's page cache"
check /no/such/page 404 'This page does not exist'

# The first admin through the admin's first-register endpoint gets a Secure, HttpOnly session cookie.
headers=$(curl -sS -D - -o /dev/null -H 'content-type: application/json' -H "origin: http://localhost:$port" \
  -d '{"email":"owner@example.com","password":"smoke-password-123"}' "http://localhost:$port/api/users/first-register")
echo "$headers" | grep -qi '^set-cookie: payload-token=.*; *Secure' || fail "first-register cookie is not Secure: $headers"
echo "$headers" | grep -qi '^set-cookie: payload-token=.*HttpOnly' || fail "first-register cookie is not HttpOnly"
echo "smoke: first admin created, session cookie is Secure and HttpOnly"

# An image upload is resized into the media collection's sizes: sharp, loaded on first use (src/content/sharp.ts).
session=$(echo "$headers" | tr -d '\r' | grep -i '^set-cookie: payload-token=' | sed 's/^[^:]*: *//; s/;.*//')
cover=$(mktemp --suffix=.png)
node -e "require('sharp')({ create: { width: 1600, height: 840, channels: 3, background: '#4f46e5' } }).png().toFile(process.argv[1])" "$cover"
upload=$(curl -sS -H "cookie: $session" -H "origin: http://localhost:$port" -F "file=@$cover;type=image/png" \
  -F '_payload={"alt":"Smoke cover"}' "http://localhost:$port/api/media")
rm -f "$cover"
echo "$upload" | node -e "const d = JSON.parse(require('fs').readFileSync(0, 'utf8')).doc; process.exit(d?.sizes?.thumbnail?.width === 480 && d?.sizes?.og?.width === 1200 ? 0 : 1)" ||
  fail "an image upload was not resized: $upload"
echo "smoke: an uploaded image was resized into its sizes"

# Content pages (issue 9): rendered on first request from the imported MDX, then cached by Next.
check /blog 200 'data-slug="introducing-the-starter-kit"'
# A page sent again comes from a cache: the host's page cache (Age) or Next's own (x-nextjs-cache).
from_cache() { grep -qi -e '^age: ' -e '^x-nextjs-cache: \(HIT\|STALE\)'; }
cache=$(curl -sS -o /dev/null -D - "http://localhost:$port/blog" | tr -d '\r')
echo "$cache" | from_cache || fail "a second GET /blog was not served from a cache: $(echo "$cache" | grep -i -E '^(age|x-nextjs-cache):')"
check /blog/introducing-the-starter-kit 200 '"@type":"BlogPosting"'
og=$(curl -sS "http://localhost:$port/blog/introducing-the-starter-kit" | grep -o '<meta property="og:image" content="[^"]*"' | sed 's/.*content="//; s/"$//; s/&amp;/\&/g')
[ -n "$og" ] || fail "the post page has no og:image"
png=$(mktemp)
type=$(curl -sS -o "$png" -w '%{content_type}' "$og")
[ "$type" = image/png ] || fail "og:image $og answered $type"
# PNG: 8-byte signature, then IHDR with the width at byte 16 and the height at byte 20 (big-endian).
size=$(od -An -tu1 -j16 -N8 "$png" | awk '{ printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }')
[ "$size" = 1200x630 ] || fail "og:image is $size, expected 1200x630"
rm -f "$png"
echo "smoke: GET /blog (cached on the second request), a post with JSON-LD, its og:image a 1200x630 PNG"
check /blog/rss.xml 200 '/blog/introducing-the-starter-kit</link>'
check /sitemap.xml 200 '/blog/introducing-the-starter-kit</loc>'
check /robots.txt 200 "Sitemap: http://localhost:$port/sitemap.xml"
check /changelog 200 '"@type":"SoftwareApplication"'
token=$(echo "$headers" | grep -io 'payload-token=[^;]*' | head -1 | cut -d= -f2)
status=$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: JWT $token" -H 'content-type: application/json' \
  -d '{"title":"Smoke draft","slug":"smoke-draft","summary":"Not published.","author":"Smoke","_status":"draft"}' \
  "http://localhost:$port/api/posts?draft=true")
[ "$status" = 201 ] || fail "creating a draft post answered $status"
check /blog/smoke-draft 404 '<html'
status=$(curl -sS -o /dev/null -w '%{http_code}' -b '__prerender_bypass=forged' "http://localhost:$port/blog/smoke-draft")
[ "$status" = 404 ] || fail "a draft with a forged draft-mode cookie answered $status"
curl -sS "http://localhost:$port/blog" | grep -q 'smoke-draft' && fail "the draft is listed on /blog"
echo "smoke: a draft post is 404 (also with a forged draft-mode cookie) and not listed"

# Publishing the draft revalidates the cached pages: the post is on /blog, in the feed and the sitemap at once;
# unpublishing takes it off them again.
draft_id=$(curl -sS -H "authorization: JWT $token" "http://localhost:$port/api/posts?where%5Bslug%5D%5Bequals%5D=smoke-draft&draft=true" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
publish() {
  local code
  code=$(curl -sS -o /dev/null -w '%{http_code}' -X PATCH -H "authorization: JWT $token" -H 'content-type: application/json' \
    -d "{\"_status\":\"$1\"}" "http://localhost:$port/api/posts/$draft_id")
  [ "$code" = 200 ] || fail "setting the post to $1 answered $code"
}
publish published
check /blog 200 'data-slug="smoke-draft"'
check /blog/smoke-draft 200 'Smoke draft'
check /blog/rss.xml 200 '/blog/smoke-draft</link>'
check /sitemap.xml 200 '/blog/smoke-draft</loc>'
publish draft
check /blog/smoke-draft 404 '<html'
curl -sS "http://localhost:$port/blog" | grep -q 'smoke-draft' && fail "an unpublished post is still listed on /blog"
curl -sS "http://localhost:$port/blog/rss.xml" | grep -q 'smoke-draft' && fail "an unpublished post is still in the feed"
echo "smoke: publishing shows a post on /blog, the feed and the sitemap at once; unpublishing removes it"

# A premium post's body stays with holders of its key: select, a where on its text, and Payload's bug class
# (a where through a relationship into a join, refused, with an unawaited promise) leave the server up.
premium_body='{"root":{"type":"root","version":1,"direction":null,"format":"","indent":0,"children":[{"type":"paragraph","version":1,"direction":null,"format":"","indent":0,"textFormat":0,"textStyle":"","children":[{"type":"text","version":1,"text":"smokepremiumsecret","format":0,"mode":"normal","style":"","detail":0}]}]}}'
status=$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: JWT $token" -H 'content-type: application/json' \
  -d "{\"title\":\"Smoke premium\",\"slug\":\"smoke-premium\",\"summary\":\"For holders.\",\"author\":\"Smoke\",\"requiredFeature\":\"advanced\",\"_status\":\"published\",\"body\":$premium_body}" \
  "http://localhost:$port/api/posts")
[ "$status" = 201 ] || fail "creating a premium post answered $status"
for query in 'where%5Bslug%5D%5Bequals%5D=smoke-premium&select%5Bbody%5D=true' 'where%5Bslug%5D%5Bequals%5D=smoke-premium&select%5BrequiredFeature%5D=false' 'where%5Bslug%5D%5Bequals%5D=smoke-premium'; do
  curl -sS "http://localhost:$port/api/posts?$query" | grep -q smokepremiumsecret && fail "an anonymous GET /api/posts?$query returned the premium body"
done
right=$(curl -sS "http://localhost:$port/api/posts?where%5Bbody.root.children.children.text%5D%5Blike%5D=smokepremiumsecret")
wrong=$(curl -sS "http://localhost:$port/api/posts?where%5Bbody.root.children.children.text%5D%5Blike%5D=nothinglikeit")
[ "$right" = "$wrong" ] || fail "a where on the premium body answers a right guess unlike a wrong one: $right / $wrong"
curl -sS -o /dev/null "http://localhost:$port/api/licenses?where%5Buser.licenses.id%5D%5Bequals%5D=1"
check /healthz 200 '"status":"ok"'
echo "smoke: a premium body is not read by select or guessed by where; the server survives Payload's unawaited query check"

# Hostile requests against the production build (issue 8): each must fail, and the server stay healthy.
big=$(mktemp)
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$big"
status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -H 'transfer-encoding: chunked' \
  --data-binary @"$big" "http://localhost:$port/api/auth/magic-link") || true
[ "$status" = 413 ] || fail "a chunked 2 MiB JSON body answered $status, expected 413"
status=$(curl -sS -o /dev/null -w '%{http_code}' -F "file=@$big" "http://localhost:$port/api/plans") || true
[ "$status" = 413 ] || fail "a 2 MiB multipart body to a non-upload route answered $status, expected 413"
rm -f "$big"
check /healthz 200 '"status":"ok"'
echo "smoke: oversized chunked and multipart bodies -> 413, still healthy"

limited=0
for i in $(seq 1 15); do
  status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -H "x-forwarded-for: 203.0.113.$i" \
    -H "x-kit-client-address: 198.51.100.$i" -d "{\"email\":\"victim$i@example.com\"}" "http://localhost:$port/api/auth/magic-link")
  [ "$status" = 429 ] && limited=$((limited + 1))
done
[ "$limited" -ge 5 ] || fail "15 magic-link requests with 15 spoofed addresses from one socket: only $limited limited (the limit is 10 per address)"
echo "smoke: spoofed X-Forwarded-For and client-address headers do not lift the per-address limit ($limited of 15 limited)"

body=$(curl -sS "http://localhost:$port/api/payload-jobs")
echo "$body" | grep -q '"code":"' || fail "anonymous GET /api/payload-jobs did not answer our error shape: $body"
echo "$body" | grep -q '"docs"' && fail "anonymous GET /api/payload-jobs listed jobs"
echo "smoke: payload-jobs closed to anonymous callers, in our error shape"
body=$(curl -sS "http://localhost:$port/api/no-such-path")
echo "$body" | grep -q '"code":"not_found"' || fail "an unknown API path did not answer 404 not_found in our error shape: $body"
echo "smoke: unknown API path -> not_found in our error shape"
body=$(curl -sS -g "http://localhost:$port/api/plans?where[noSuchField][equals]=1")
echo "$body" | grep -q '"code":"query_error"' || fail "a query on an unknown field did not answer query_error (error names minified?): $body"
echo "smoke: a query on an unknown field -> query_error (Payload's error names survive the production build)"

for attack in '/.//evil.example' '/a/..//evil.example' '/%2e//evil.example'; do
  location=$(curl -sS -o /dev/null -D - -G --data-urlencode "path=$attack" "http://localhost:$port/preview/exit" | tr -d '\r' | grep -i '^location:' | cut -d' ' -f2-)
  [ "$location" = /blog ] || fail "the preview exit with path=$attack redirected to '$location' (an open redirect)"
done
echo "smoke: the preview exit never leaves the site (dot segments resolved before the check)"
long_key=$(head -c 5000 /dev/zero | tr '\0' K)
status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d "{\"key\":\"$long_key\"}" "http://localhost:$port/api/licenses/validate")
[ "$status" = 400 ] || fail "a 5,000-character license key answered $status, not 400"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "http://localhost:$port/api/users/verify/abc")
[ "$status" = 404 ] || fail "Payload's own verify route answered $status, not 404"
echo "smoke: over-long license keys refused (400); Payload's verify route is gone (404)"
body=$(curl -sS -H 'content-type: application/json' -d '{"key":"KIT-00000-00000-00000-00000","fingerprint":"smoke"}' "http://localhost:$port/api/licenses/activate")
echo "$body" | grep -q '"code":"license_not_found"' || fail "activating an unknown key did not answer license_not_found: $body"
status=$(curl -sS -o /dev/null -w '%{http_code}' -H 'content-type: application/json' -d "{\"key\":\"$long_key\",\"fingerprint\":\"x\"}" "http://localhost:$port/api/licenses/activate")
[ "$status" = 400 ] || fail "activating a 5,000-character key answered $status, not 400"
location=$(curl -sS -o /dev/null -D - "http://localhost:$port/auth/callback?type=seat&token=not-a-real-token-aaaaaaaaaaaa" | tr -d '\r' | grep -i '^location:' | cut -d' ' -f2-)
case "$location" in */sign-in\?error=invalid_link) ;; *) fail "an unknown seat claim link redirected to '$location'" ;; esac
echo "smoke: activation refuses unknown and over-long keys; an unknown seat link claims nothing"
for page in / /pricing; do
  curl -sS -o /dev/null "http://localhost:$port$page"
  headers=$(curl -sS -o /tmp/smoke-storefront.html -D - "http://localhost:$port$page" | tr -d '\r')
  echo "$headers" | from_cache || fail "$page was not served from a cache on the second request: $(echo "$headers" | grep -i -E '^(age|x-nextjs-cache|cache-control):')"
  echo "$headers" | grep -qi '^cache-control:.*no-store' && fail "$page is sent with no-store (no back-forward cache)"
  grep -q 'Your account' /tmp/smoke-storefront.html || fail "$page's header does not start neutral ('Your account')"
  grep -q '>Sign in<' /tmp/smoke-storefront.html && fail "$page's cached HTML says 'Sign in' before the visitor is known"
done
status=$(curl -sS -o /dev/null -w '%{http_code}' "http://localhost:$port/storefront/pricing")
[ "$status" = 308 ] || fail "/storefront/pricing answered $status, not a redirect to /pricing"
echo "smoke: / and /pricing come from a cache, without no-store, with a neutral header"
headers=$(curl -sS -o /tmp/smoke-home.br -D - -H 'accept-encoding: gzip, deflate, br' "http://localhost:$port/" | tr -d '\r')
echo "$headers" | grep -qi '^content-encoding: br' || fail "/ was not sent brotli-compressed to a browser that accepts it"
# The public pages carry one script, the islands (docs/PUBLIC_PAGES.md); the admin keeps Next's chunks.
grep -q '/_next/static/chunks/[A-Za-z0-9_.-]*\.js' /tmp/smoke-storefront.html && fail "/pricing still loads Next's runtime"
islands=$(grep -o '/_kit/islands\.js?v=[A-Za-z0-9_-]*' /tmp/smoke-storefront.html | head -1 || true)
[ -n "$islands" ] || fail "no islands script in /pricing's HTML"
headers=$(curl -sS -o /dev/null -D - -H 'accept-encoding: gzip, br' "http://localhost:$port$islands" | tr -d '\r')
echo "$headers" | grep -qi '^content-encoding: br' || fail "$islands was not sent brotli-compressed"
echo "$headers" | grep -qi '^cache-control: public, max-age=31536000, immutable' || fail "$islands is not cached for a year: $(echo "$headers" | grep -i '^cache-control:')"
curl -sS -o /tmp/smoke-admin.html "http://localhost:$port/admin/login"
chunk=$(grep -o '/_next/static/chunks/[A-Za-z0-9_.-]*\.js' /tmp/smoke-admin.html | head -1 || true)
[ -n "$chunk" ] || fail "no script found in /admin/login's HTML"
headers=$(curl -sS -o /dev/null -D - -H 'accept-encoding: gzip, br' "http://localhost:$port$chunk" | tr -d '\r')
echo "$headers" | grep -qi '^content-encoding: br' || fail "$chunk was not sent as its prebuilt brotli copy"
echo "$headers" | grep -qi '^cache-control: public, max-age=31536000, immutable' || fail "$chunk is not cached for a year: $(echo "$headers" | grep -i '^cache-control:')"
for page in /sign-in /sign-up; do
  headers=$(curl -sS -o /dev/null -D - "http://localhost:$port$page" | tr -d '\r')
  echo "$headers" | grep -qi '^cache-control: private, no-cache' || fail "$page is not restorable from the back-forward cache: $(echo "$headers" | grep -i '^cache-control:')"
done
headers=$(curl -sS -o /dev/null -D - "http://localhost:$port/reset-password?token=x" | tr -d '\r')
echo "$headers" | grep -qi '^cache-control:.*no-store' || fail "/reset-password (a token in its query) lost its no-store: $(echo "$headers" | head -20 | tr '\n' '|')"
echo "smoke: pages and assets leave compressed (assets as built, cached for a year); /sign-in and /sign-up may be restored by Back"
aliases=$(for i in $(seq 1 200); do printf 'a%d: Plans(limit: 100) { docs { id name } } ' "$i"; done)
answer=$(curl -sS -o /tmp/smoke-graphql.json -w '%{http_code} %{time_total}' -H 'content-type: application/json' -d "{\"query\":\"{ $aliases }\"}" "http://localhost:$port/api/graphql")
[ "${answer% *}" = 400 ] || fail "200 GraphQL aliases of Plans(limit: 100) answered ${answer% *}, not 400: $(head -c 300 /tmp/smoke-graphql.json)"
grep -q '"code":"query_too_complex"' /tmp/smoke-graphql.json || fail "the 200-alias GraphQL query was not refused as query_too_complex: $(head -c 300 /tmp/smoke-graphql.json)"
echo "smoke: 200 GraphQL aliases refused (400 query_too_complex) in ${answer#* } s"
headers=$(curl -sS -o /dev/null -D - "http://localhost:$port/auth/callback?type=verify&token=not-a-token" | tr -d '\r')
echo "$headers" | grep -qi '^critical-ch:' && fail "/auth/callback sends Critical-CH: a browser without the hint would request each single-use link twice"
curl -sS -o /dev/null -D - "http://localhost:$port/admin/login" | tr -d '\r' | grep -qi '^critical-ch:' || fail "the admin lost its Critical-CH"
echo "smoke: Critical-CH on the admin only: single-use links are requested once"

kill -TERM "$pid"
for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
kill -0 "$pid" 2>/dev/null && fail "still running 30 s after SIGTERM"
wait "$pid" && code=0 || code=$?
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
grep -q 'server stopped' "$log" || fail "no orderly shutdown in the log"
echo "smoke: SIGTERM -> clean exit"
psql "$admin_url" -qc "DROP DATABASE IF EXISTS \"$db_name\" WITH (FORCE)"
rm -f "$log"
