# Sets up tfphi from this checkout; source it from the checkout's root:
#
#     . scripts/setup.sh && tfphi check examples/vendor-stack
#
# Inside an active virtual environment it installs tfphi there (`pip install -e .`). Otherwise it
# makes one in .venv (the distribution's Python is "externally managed", PEP 668: Debian 12 and
# Ubuntu 24.04 refuse `pip install` into it) and activates it, so `tfphi` is on PATH afterwards.
# Where `python3 -m venv` cannot work (Debian without python3-venv) it installs python3-venv
# with apt-get first (as root, else through sudo). TFPHI_EXTRAS='[test,bench]' installs extras.
#
# Sourced, not run: it returns on failure instead of exiting your shell; POSIX sh.

_tfphi_venv_package() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "scripts/setup.sh: 'python3 -m venv' does not work here: install your distribution's venv module for python3" >&2
        return 1
    fi
    if [ "$(id -u)" = "0" ]; then _tfphi_sudo=""; else _tfphi_sudo="sudo"; fi
    echo "scripts/setup.sh: installing python3-venv (apt-get) for 'python3 -m venv'" >&2
    $_tfphi_sudo apt-get update -qq >/dev/null &&
        $_tfphi_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
}

_tfphi_setup() {
    if [ ! -f pyproject.toml ] || [ ! -f scripts/setup.sh ]; then
        echo "scripts/setup.sh: source it from the root of the tfphi checkout" >&2
        return 1
    fi
    if [ -z "${VIRTUAL_ENV:-}" ]; then
        if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
            rm -rf .venv
            if ! python3 -m venv .venv >/dev/null 2>&1; then
                rm -rf .venv
                _tfphi_venv_package && python3 -m venv .venv || return 1
            fi
        fi
        # shellcheck disable=SC1091
        . .venv/bin/activate || return 1
    fi
    python -m pip install --quiet --disable-pip-version-check -e ".${TFPHI_EXTRAS:-}"
}

_tfphi_setup
