#!/usr/bin/env bash
# Every test of tfphi, from a fresh machine: installs what the tests need, then runs
# the Python suite (core, CLI, language server over stdio, Neovim end to end, benchmark
# smoke test) and the VS Code client's checks (type check, lint, unit tests, packaging).
set -euo pipefail
cd "$(dirname "$0")/.."

# tfphi and the test extras, in the active virtual environment or else in .venv (made and
# activated by scripts/setup.sh: the distribution's python3 refuses `pip install`, PEP 668).
TFPHI_EXTRAS='[test,bench]'
# shellcheck source=scripts/setup.sh
. scripts/setup.sh

# Neovim (Debian's 0.7) drives the server in one end-to-end test, as an independent client.
if ! command -v nvim >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
  fi
fi

# Emacs 28 with eglot (Debian's emacs-nox and elpa-eglot) drives the server in tests/editor/test_emacs.py.
if ! emacs --batch --eval "(require 'eglot)" >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq emacs-nox elpa-eglot >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq emacs-nox elpa-eglot >/dev/null
  fi
fi

# Microsoft's SARIF validator (npm; ships its own binary) checks `check --format sarif` with GitHub's rules.
if [ ! -x .cache/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool ]; then
  npm install --silent --no-audit --no-fund --prefix .cache/sarif-multitool @microsoft/sarif-multitool >/dev/null
fi

# tfphi's bytecode, once: the tests start the CLI and the server as new processes hundreds of
# times, and where PYTHONDONTWRITEBYTECODE is set (it is on the project's machines) each of them
# would compile tfphi from source again (half of a small `tfphi check`'s CPU time).
python -m compileall -q server/tfphi

# pytest exits 5 when it collects no test: with `set -e` that fails the run, as it should (with
# pytest-xdist too). One worker per core (-n auto); worksteal: the tests differ in length by three
# orders of magnitude (a 10,000-file workspace beside a parse check), so an idle worker takes
# pending tests from a busy one. A later `-n 0` on the command line runs them in one process.
HYPOTHESIS_PROFILE=ci python -m pytest -q -p no:cacheprovider -n auto --dist worksteal "$@"

bash vscode-client/ci.sh
