#!/usr/bin/env bash
# Installs what ember needs on Debian 12, only where it is missing. Safe to run repeatedly.
#   scripts/install-deps.sh            build + tests + the example
#   scripts/install-deps.sh --bench    also the benchmark baselines (Dask, pyhunspell, gnuplot)
#   scripts/install-deps.sh --fuzz     also clang 14 and its libFuzzer runtime (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libsimdjson-dev libdivide-dev libcli11-dev libfmt-dev libhunspell-dev hunspell-en-us
          wordnet-base nodejs npm)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3 python3-distributed python3-pandas python3-hunspell gnuplot-nox hyperfine
             zlib1g-dev)
fi
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  # nodejs/npm may come from elsewhere (e.g. a node install on PATH): accept the commands.
  if [[ "$p" == nodejs ]] && command -v node >/dev/null; then continue; fi
  if [[ "$p" == npm ]] && command -v npm >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# DuckDB for the interop test and the benchmarks (a native build shipped in the npm package).
npm_dir=.cache/npm
if [[ ! -d "$npm_dir/node_modules/@duckdb/node-api" ]]; then
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm install --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 >/dev/null)
fi
