#!/usr/bin/env bash
# CI for the tfphi VS Code extension, from a fresh clone:
#   npm ci, npm test (tsc --noEmit, eslint, unit tests), npm run package, npm run check-vsix.
# Needs node >= 20 and the npm registry; nothing else from the network.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

export CI="${CI:-true}"
export npm_config_audit=false
export npm_config_fund=false
export npm_config_update_notifier=false

echo "== node $(node --version), npm $(npm --version)"
rm -rf out out-test out-tsc tfphi-*.vsix

echo "== npm ci"
npm ci --no-audit --no-fund

echo "== npm test"
npm test

echo "== npm run package"
npm run package

echo "== npm run check-vsix"
npm run check-vsix
