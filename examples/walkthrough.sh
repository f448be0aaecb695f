#!/usr/bin/env bash
# A whole MSV spar over HTTP with curl: open, add two fighters, initiative, attacks in turn until
# one is defeated, close (the server seed is revealed), export, and verify the export.
#
#   make run                             # in another terminal (or: referee serve &)
#   examples/walkthrough.sh              # BASE=http://127.0.0.1:8080 for another port
#
# Needs curl and jq. The last step verifies the export with the `referee` command: the one in
# the repository's .venv (which `make run` made) when there is one, else `referee` on PATH
# (REFEREE_CMD names another). Exits non-zero if any step fails or the export does not verify.
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${REFEREE_CMD:-}" ]; then
  if [ -x "$here/../.venv/bin/referee" ]; then
    REFEREE_CMD="$here/../.venv/bin/referee"
  elif command -v referee >/dev/null; then
    REFEREE_CMD=referee
  else
    echo "walkthrough: no 'referee' command: run 'make run' once (it makes .venv), or set REFEREE_CMD" >&2
    exit 2
  fi
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

post() {  # post PATH TOKEN [JSON]
  curl -sS --fail-with-body -X POST "$BASE$1" -H "Authorization: Bearer $2" \
       -H 'Content-Type: application/json' -d "${3:-{\}}"
}

echo "== open a bout (the commitment is published before any roll)"
bout=$(curl -sS --fail-with-body -X POST "$BASE/api/bouts" -H 'Content-Type: application/json' \
       -d '{"system": "msv", "name": "Walkthrough spar", "client_seed": "walkthrough"}')
id=$(jq -r .id <<<"$bout"); ref=$(jq -r .referee_token <<<"$bout")
echo "bout $id, commitment $(jq -r .commitment <<<"$bout")"

echo "== add two fighters (each gets its own token)"
tarl=$(post "/api/bouts/$id/fighters" "$ref" '{"name": "Tarl", "cs": 65}' | jq -r .token)
pakur=$(post "/api/bouts/$id/fighters" "$ref" '{"name": "Pa-Kur", "cs": 70}' | jq -r .token)

echo "== initiative"
post "/api/bouts/$id/initiative" "$ref" | jq -c .order

echo "== attacks in turn until one is defeated"
for _ in $(seq 1 500); do
  state=$(curl -sS --fail-with-body "$BASE/api/bouts/$id")
  winner=$(jq -r .winner <<<"$state")
  [ "$winner" != "null" ] && break
  turn=$(jq -r .turn <<<"$state")
  if [ "$turn" = "Tarl" ]; then token=$tarl; target=Pa-Kur; else token=$pakur; target=Tarl; fi
  post "/api/bouts/$id/attacks" "$token" "{\"attacker\": \"$turn\", \"target\": \"$target\"}" \
    | jq -r '"nonce \(.rolls[0].nonce): \(.summary)"'
done
echo "winner: $(curl -sS "$BASE/api/bouts/$id" | jq -r .winner)"

echo "== close: the server seed is revealed"
post "/api/bouts/$id/close" "$ref" | jq -r '"server seed \(.server_seed)"'

echo "== export and verify"
curl -sS --fail-with-body "$BASE/api/bouts/$id/export" > "$out/export.json"
"$REFEREE_CMD" verify "$out/export.json"
