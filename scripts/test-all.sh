#!/usr/bin/env bash
# The whole test run: checks, unit and API tests on SQLite and on PostgreSQL, then the browser
# journeys against the built app. Installs Debian's chromium when it is missing. Fails (never
# skips) when PostgreSQL or Chromium cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
REPORTS=$(mktemp -d)
PREPARING=""
trap '[ -z "$PREPARING" ] || kill "$PREPARING" 2>/dev/null || true; rm -rf "$REPORTS"' EXIT

step() { printf '\n==> %s\n' "$*"; }

step "Dependencies"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# Debian's chromium drives the browser journeys and prints the test reports; pg_dump and pg_restore
# (postgresql-client) back up and restore in the backup test; qpdf merges reports
# (the portal needs it) and checks them, unzip checks zips; poppler-utils (pdftotext, pdftoppm),
# ghostscript (ps2pdf) and imagemagick (convert) make and read the report corpus; prometheus
# scrapes /metrics; nginx balances the several-servers journey (deploy/nginx); make, g++ and
# python3 compile better-sqlite3 for Node 24 (scripts/with-node.sh); dcmtk and libopenjp2-tools
# make the DICOM test files. Whatever is missing is installed in one go.
missing=()
[ -n "${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null || missing+=(chromium)
command -v qpdf >/dev/null || missing+=(qpdf)
command -v pg_dump >/dev/null || missing+=(postgresql-client)
command -v unzip >/dev/null || missing+=(unzip)
command -v prometheus >/dev/null || missing+=(prometheus)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v make >/dev/null || missing+=(make)
command -v g++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
command -v pdftoppm >/dev/null || missing+=(poppler-utils)
command -v ps2pdf >/dev/null || missing+=(ghostscript)
[ -x /usr/bin/convert ] || missing+=(imagemagick)
# dcmtk makes and checks the DICOM of the imaging tests; opj_compress makes their JPEG 2000.
command -v dump2dcm >/dev/null || missing+=(dcmtk)
command -v opj_compress >/dev/null || missing+=(libopenjp2-tools)
if [ ${#missing[@]} -gt 0 ]; then
  step "Installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
CHROMIUM_PATH=${CHROMIUM_PATH:-$(command -v chromium || true)}
for tool in qpdf pg_dump pg_restore unzip prometheus /usr/sbin/nginx make g++ python3 pdftotext pdftoppm ps2pdf /usr/bin/convert; do
  if ! command -v "$tool" >/dev/null; then
    echo "$tool is required by the tests and could not be installed." >&2
    exit 1
  fi
done
if [ -z "$CHROMIUM_PATH" ]; then
  echo "Chromium is required for the browser tests and could not be installed." >&2
  exit 1
fi
export CHROMIUM_PATH

step "PostgreSQL"
PG_ADMIN_URL=${TEST_PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
export TEST_PG_ADMIN_URL=$PG_ADMIN_URL
pg_up() { node -e "const pg=require('pg');const c=new pg.Client({connectionString:process.argv[1]});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))" "$PG_ADMIN_URL" 2>/dev/null; }
if ! (cd apps/server && pg_up); then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    sleep 2
  fi
fi
if ! (cd apps/server && pg_up); then
  echo "PostgreSQL is not reachable at $PG_ADMIN_URL: the PostgreSQL suite cannot run." >&2
  exit 1
fi

# prepare <major>: in the background, Node <major> fetched and better-sqlite3 compiled for it
# (scripts/with-node.sh; one to three minutes on a new machine, nothing once cached), on one core
# while a step runs on the other. ready <major> waits for it.
prepare() {
  scripts/with-node.sh "$1" node -e "if (!process.version.startsWith('v$1.')) { console.error(process.version); process.exit(1) }" \
    >"$REPORTS/node$1.log" 2>&1 &
  PREPARING=$!
}
ready() {
  wait "$PREPARING" || { cat "$REPORTS/node$1.log" >&2; echo "Node $1 could not be prepared." >&2; exit 1; }
  PREPARING=""
  cat "$REPORTS/node$1.log"
}
prepare 24

step "Format, lint, types"
npx prettier --check . >/dev/null || { npx prettier --check . ; exit 1; }
npx eslint . --max-warnings 0
npm run typecheck
node scripts/check-engines.mjs
node scripts/check-install-scripts.mjs
# The OpenAPI document as the server serves it, linted by Redocly's recommended rules with every
# example checked against its schema (redocly.yaml). No telemetry leaves the machine.
npx tsx apps/server/src/cli.ts openapi >"$REPORTS/openapi.json"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint "$REPORTS/openapi.json" --config redocly.yaml

step "Unit and API tests on SQLite, under Node 24"
# The portal supports Node 20.19, 22 and 24 (package.json engines). Each suite runs once, each on
# another of them: the unit and SQLite suites under Node 24, the PostgreSQL suite under Node 22, the
# browser journeys (whose portal runs on SQLite) under the machine's Node. Nodes 22 and 24 come
# from the npm registry's binary packages (scripts/with-node.sh).
ready 24
prepare 22
scripts/with-node.sh 24 npx vitest run --project shared --project server --project web --project admin \
  --reporter=default --reporter=json --outputFile.json="$REPORTS/sqlite-node24.json"

step "API tests on PostgreSQL, under Node 22"
ready 22
TEST_DATABASE=postgres scripts/with-node.sh 22 npx vitest run --project server \
  --reporter=default --reporter=json --outputFile.json="$REPORTS/postgres-node22.json"

step "Build"
npm run build

step "Browser journeys in headless Chromium"
# Two journey files at once (vitest.config.ts): each runs a portal and a Chromium.
npx vitest run --project e2e --maxWorkers=2 --reporter=default --reporter=json --outputFile.json="$REPORTS/e2e.json"

step "Summary"
node -e '
const fs = require("fs");
let passed = 0, failed = 0, skipped = 0;
for (const f of process.argv.slice(1)) {
  const r = JSON.parse(fs.readFileSync(f, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
  console.log(`${f.split("/").pop().replace(".json", "")}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
if (passed === 0) { console.error("no test ran"); process.exit(1); }
console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
process.exit(failed ? 1 : 0);
' "$REPORTS/sqlite-node24.json" "$REPORTS/postgres-node22.json" "$REPORTS/e2e.json"
