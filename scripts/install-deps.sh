#!/usr/bin/env bash
# Installs what ember needs on Debian 12, only where it is missing. Safe to run repeatedly.
#   scripts/install-deps.sh            build + tests + the example (what ./test.sh needs)
#   scripts/install-deps.sh --run      the library and the spellcheck example (./run.sh)
#   scripts/install-deps.sh --library  the library alone (scripts/install.sh)
#   scripts/install-deps.sh --python   the library and the Python package (scripts/install-python.sh)
#   scripts/install-deps.sh --bench    also the benchmark baselines (Dask, pyhunspell, gnuplot)
#   scripts/install-deps.sh --fuzz     also clang 14 and its libFuzzer runtime (scripts/fuzz.sh)
#   scripts/install-deps.sh --format   clang-format 14 alone (scripts/check-format.sh)
#   scripts/install-deps.sh --docs     doxygen alone (scripts/api-docs.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# ccache is optional everywhere (the scripts use it when present); it makes rebuilds cheap.
library=(cmake ninja-build g++ ccache libsimdjson-dev libdivide-dev
         libsnappy-dev libzstd-dev zlib1g-dev liblz4-dev flatbuffers-compiler libflatbuffers-dev
         libre2-dev libutf8proc-dev libxxhash-dev libcurl4-openssl-dev libpugixml-dev)
example=(pkg-config libcli11-dev libhunspell-dev hunspell-en-us wordnet-base)
# openssl: the certificate of the HTTPS test server.
tests=(libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev nodejs npm openssl)
# doxygen: the API reference (scripts/api-docs.sh), which a test builds too; python3 reads its
# XML for the names doxygen does not check (scripts/api_docs_check.py).
docs=(doxygen python3)
# Open MPI: the distributed runner (optional for the library; the tests and ./run.sh --ranks use it).
mpi=(openmpi-bin libopenmpi-dev)
# The Python package (python/): pybind11 and Python's headers to build it; NumPy, cloudpickle
# (process actors), pandas (Table.to_pandas) and pytest to use and test it; PyTorch and
# pyhunspell for its examples (examples/python).
python_package=(pybind11-dev python3-dev python3-venv python3-numpy python3-cloudpickle
                python3-pandas python3-pytest)
python_examples=(python3-torch python3-hunspell)
# Slurm and munge: the test that runs a requeued job under a Slurm it starts itself.
slurm=(slurmctld slurmd slurm-client munge)
duckdb=yes
case "${1:-}" in
  --library) packages=("${library[@]}"); duckdb=no ;;
  --python) packages=("${library[@]}" "${python_package[@]}"); duckdb=no ;;
  --run) packages=("${library[@]}" "${example[@]}" "${mpi[@]}"); duckdb=no ;;
  --bench) packages=("${library[@]}" "${example[@]}" "${tests[@]}" "${docs[@]}" "${mpi[@]}"
                     python3 python3-distributed python3-pandas python3-hunspell gnuplot-nox
                     hyperfine zlib1g-dev) ;;
  --fuzz) packages=("${library[@]}" clang-14 libclang-rt-14-dev); duckdb=no ;;
  --format) packages=(clang-format-14); duckdb=no ;;
  --docs) packages=("${docs[@]}"); duckdb=no ;;
  "") packages=("${library[@]}" "${example[@]}" "${tests[@]}" "${docs[@]}" "${mpi[@]}"
            "${slurm[@]}" "${python_package[@]}" "${python_examples[@]}") ;;
  *) echo "usage: $0 [--library|--python|--run|--bench|--fuzz|--format|--docs]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  # nodejs/npm may come from elsewhere (e.g. a node install on PATH): accept the commands.
  if [[ "$p" == nodejs ]] && command -v node >/dev/null; then continue; fi
  if [[ "$p" == npm ]] && command -v npm >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# DuckDB for the interop test and the benchmarks (a native build shipped in the npm package),
# apache-arrow (JavaScript) for the Arrow IPC interop test, and hyparquet (a second, independent
# Parquet reader, with its codecs) for the Parquet interop test, and s3rver (an S3-compatible
# server the object storage tests start on loopback). One npm command installs them all: npm
# prunes what a later install does not name.
npm_dir=.cache/npm
if [[ "$duckdb" == yes && ( ! -d "$npm_dir/node_modules/@duckdb/node-api" ||
      ! -d "$npm_dir/node_modules/apache-arrow" ||
      ! -d "$npm_dir/node_modules/hyparquet-compressors" ||
      ! -d "$npm_dir/node_modules/s3rver" ) ]]; then
  echo "installing DuckDB's npm package into $npm_dir (for the interop test)" >&2
  mkdir -p "$npm_dir"
  (cd "$npm_dir" && npm install --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 \
     apache-arrow@21.2.0 hyparquet@1.33.0 hyparquet-compressors@1.1.2 s3rver@3.7.1 >/dev/null)
fi
