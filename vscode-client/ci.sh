#!/usr/bin/env bash
# CI for the tfphi VS Code extension, from a fresh clone:
#   npm ci, npm test (tsc --noEmit, eslint, unit tests), the linux-x64 .vsix with the bundled
#   server (`npm run package -- --target linux-x64`; `npm run package` alone builds all five
#   targets), npm run check-vsix, then the end-to-end tests in a real VS Code (e2e/run.sh).
# Needs node >= 20 and the npm registry; nothing else from the network.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

export CI="${CI:-true}"
export npm_config_audit=false
export npm_config_fund=false
export npm_config_update_notifier=false

echo "== node $(node --version), npm $(npm --version)"
rm -rf out out-test out-tsc tfphi-*.vsix e2e-output

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== npm test"
npm test

echo "== npm run package -- --target linux-x64"
npm run package -- --target linux-x64

echo "== npm run check-vsix"
npm run check-vsix

echo "== end-to-end tests in code-server"
bash e2e/run.sh
