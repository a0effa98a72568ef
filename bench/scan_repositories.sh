#!/bin/bash
# Scan every extracted repository of a set with one padlint tree, one JSON report per repository.
# Called by a set's own scan.sh (bench/validation/scan.sh, bench/fresh/scan.sh), which names the set's
# vendored.txt; usage and what is left out are in that script and the set's README.md.
# Usage: bench/scan_repositories.sh VENDORED PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options]
#   VENDORED      lines `NAME PATH  # why`: PATH (inside NAME's folder) is a vendored copy of a library, left out
#                 of NAME's scan; `#` starts a comment
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH)
#   SRC_DIR       one directory per repository, named as in the set's repositories.csv
set -u
vendored_list=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tree=$(cd "$2" && pwd); src=$3; out=$(mkdir -p "$4" && cd "$4" && pwd); shift 4
cd "$src" || exit 1
for name in */; do
  name=${name%/}
  vendored=()
  while read -r listed path _; do
    [ "$listed" = "$name" ] || continue
    # padlint runs in SRC_DIR, so its patterns are read from there: PATH is put under the repository's
    # folder unless it is written so already (`NAME NAME/path` in the older sets)
    case $path in "$name"/*) ;; *) path="$name/$path" ;; esac
    vendored+=(--extend-exclude "$path")
  done < <(sed 's/#.*//' "$vendored_list")
  PYTHONPATH=$tree python -m padlint check --output-format json --exit-zero --no-cache --jobs 1 --timeout 0 "${vendored[@]}" "$@" "$name" \
    > "$out/$name.json" 2> "$out/$name.err"
done
