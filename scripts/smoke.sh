#!/usr/bin/env bash
# Production smoke test, after `npm run build`: start `npm start` against a scratch database,
# check /healthz, /readyz, /api/plans and /admin, then SIGTERM it and expect a clean exit.
# Usage: SMOKE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/kit_smoke bash scripts/smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

port=${SMOKE_PORT:-3999}
db_url=${SMOKE_DATABASE_URL:?set SMOKE_DATABASE_URL to a scratch database (it is dropped and recreated)}
admin_url="${db_url%/*}/postgres"
db_name="${db_url##*/}"
log=$(mktemp)

psql "$admin_url" -qc "DROP DATABASE IF EXISTS \"$db_name\" WITH (FORCE)" -c "CREATE DATABASE \"$db_name\""

NODE_ENV=production PORT=$port DATABASE_URL="$db_url" SERVER_URL="http://localhost:$port" \
  PAYLOAD_SECRET="smoke-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" SMTP_URL="smtp://127.0.0.1:2525" \
  PUBLIC_PRICE_ID_STANDARD_LIFETIME=price_smoke_standard \
  PAYMENT_SECRET_KEY=sk_test_smoke PAYMENT_WEBHOOK_SECRET=whsec_smoke PUBLIC_PAYMENT_PUBLISHABLE_KEY=pk_test_smoke \
  REPO_ACCESS_TOKEN=smoke-token REPO_OWNER=kit-org REPO_NAME=starter-kit REPO_API_URL=http://127.0.0.1:9 \
  node_modules/.bin/tsx server.ts >"$log" 2>&1 &
pid=$!

fail() { echo "smoke: $*"; echo "--- server log"; cat "$log"; kill -9 "$pid" 2>/dev/null || true; exit 1; }

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

# The first admin through the admin's first-register endpoint gets a Secure, HttpOnly session cookie.
headers=$(curl -sS -D - -o /dev/null -H 'content-type: application/json' -H "origin: http://localhost:$port" \
  -d '{"email":"owner@example.com","password":"smoke-password-123"}' "http://localhost:$port/api/users/first-register")
echo "$headers" | grep -qi '^set-cookie: payload-token=.*; *Secure' || fail "first-register cookie is not Secure: $headers"
echo "$headers" | grep -qi '^set-cookie: payload-token=.*HttpOnly' || fail "first-register cookie is not HttpOnly"
echo "smoke: first admin created, session cookie is Secure and HttpOnly"

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

kill -TERM "$pid"
for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
kill -0 "$pid" 2>/dev/null && fail "still running 30 s after SIGTERM"
wait "$pid" && code=0 || code=$?
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
grep -q '\[server\] stopped' "$log" || fail "no orderly shutdown in the log"
echo "smoke: SIGTERM -> clean exit"
psql "$admin_url" -qc "DROP DATABASE IF EXISTS \"$db_name\" WITH (FORCE)"
rm -f "$log"
