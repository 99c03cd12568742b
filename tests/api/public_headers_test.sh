#!/usr/bin/env bash
# The public headers stand alone and hide the engine: each compiles by itself with only
# include/ on the path, and none names a type declared in src/ or one of the internals below.
# Usage: public_headers_test.sh SOURCE_DIR CXX
set -euo pipefail
root=$1
cxx=$2
headers=("$root"/include/ember/*.h)
(( ${#headers[@]} >= 8 )) || { echo "found only ${#headers[@]} public headers" >&2; exit 1; }

status=0
for h in "${headers[@]}"; do
  if ! echo "#include \"ember/$(basename "$h")\"" |
      "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I "$root/include" -x c++ -; then
    echo "FAIL: $(basename "$h") does not compile on its own" >&2
    status=1
  fi
done

# Names of types the engine declares internally, minus those the public headers declare.
declared() {
  grep -rhoE '^\s*(class|struct|enum class|enum|using)\s+[A-Z][A-Za-z0-9_]*' "$@" |
    awk '{print $NF}' | sort -u
}
mapfile -t internal < <(comm -23 <(declared "$root/src" --include='*.h') \
                                 <(declared "$root/include"))
(( ${#internal[@]} >= 50 )) || { echo "found only ${#internal[@]} internal names" >&2; exit 1; }
# Functions and members that must stay internal, which the pattern above cannot see.
internal+=(get_bit set_bit clear_bit mutable_data Cancelled LogicalNode ExprNode UdfSpec
           allocate_uninitialized serialize deserialize)

for h in "${headers[@]}"; do
  # Code only: comments may mention anything.
  code=$(sed -e 's://.*$::' "$h")
  for name in "${internal[@]}"; do
    if grep -qw -- "$name" <<<"$code"; then
      echo "FAIL: $(basename "$h") names the internal '$name'" >&2
      status=1
    fi
  done
  if grep -E '^\s*#\s*include\s+"' <<<"$code" | grep -vqE '"ember/[a-z_]+\.h"'; then
    echo "FAIL: $(basename "$h") includes a header outside include/ember" >&2
    status=1
  fi
done
(( status == 0 )) && echo "${#headers[@]} public headers: each stands alone; ${#internal[@]} internal names checked"
exit $status
