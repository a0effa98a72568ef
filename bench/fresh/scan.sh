#!/bin/bash
# Scan every extracted fresh repository with one padlint tree, one JSON report per repository.
# Usage: bench/fresh/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options, e.g. --select ALL]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. /work/main at the commit in README.md
#   SRC_DIR       one directory per repository, named as in repositories.csv (see ../validation/extract.sh)
# Vendored copies of libraries are left out (see README.md).
set -u
tree=$(cd "$1" && pwd); src=$2; out=$(mkdir -p "$3" && cd "$3" && pwd); shift 3
cd "$src" || exit 1
for name in */; do
  name=${name%/}
  vendored=()
  case $name in
    mm-cot) vendored=(--extend-exclude "mm-cot/timm") ;;  # a copy of the timm vision library
  esac
  PYTHONPATH=$tree python -m padlint check --output-format json --exit-zero --no-cache --jobs 1 --timeout 0 "${vendored[@]}" "$@" "$name" \
    > "$out/$name.json" 2> "$out/$name.err"
done
