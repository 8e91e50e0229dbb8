#!/usr/bin/env bash
# The end-to-end tests of the packaged extension in a real VS Code (code-server + chromium),
# run by ci.sh after `npm run package -- --target linux-x64`. The editor is installed once per
# set of versions into ~/.cache/tfphi-e2e (or $TFPHI_E2E_CACHE) by setup.sh and reused after.
# Screenshots go to e2e-output/. TFPHI_E2E_KEEP=1 keeps the editor's temporary folder.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$(date +%s)
home="$(bash e2e/setup.sh | tail -n 1)"
echo "== e2e: editor ready in $(( $(date +%s) - start )) s ($home)"
vsix="tfphi-linux-x64-$(node -p 'require("./package.json").version').vsix"
[ -f "$vsix" ] || npm run package -- --target linux-x64

rm -rf e2e-output
tests_start=$(date +%s)
TFPHI_E2E_HOME="$home" node --test --test-concurrency=1 --test-reporter=spec --test-timeout=900000 e2e/
echo "== e2e: tests took $(( $(date +%s) - tests_start )) s, $(( $(date +%s) - start )) s in all"
