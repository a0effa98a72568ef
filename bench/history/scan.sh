#!/bin/bash
# Rebuild the history set and scan it: for each row of files.csv, write the listed files as they were
# before the fix commit (COMMIT^) and at it, then run padlint on each side as a user would.
# Usage: bench/history/scan.sh PADLINT_TREE WORK_DIR
#   PADLINT_TREE  a checkout of the padlint commit measured (README: 40ef15a)
#   WORK_DIR      gets ID/before/..., ID/after/..., ID/before.json, ID/after.json
# Each repository must have been fetched first (the fetch tool's bare git directory /work/.mirror/OWNER+NAME/repo).
set -u
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$1" && pwd); work=$2
mkdir -p "$work"
tail -n +2 "$here/files.csv" | tr -d '\r' | while IFS=, read -r id repository commit paths; do
  git_dir=/work/.mirror/${repository/\//+}/repo
  for side in before after; do
    rev=$commit; [ $side = before ] && rev=$commit^
    mkdir -p "$work/$id/$side/.git"  # a checkout's root (see ../validation/extract.sh): the other side is not its project
    for path in $paths; do
      mkdir -p "$work/$id/$side/$(dirname "$path")"
      git --git-dir="$git_dir" show "$rev:$path" > "$work/$id/$side/$path" 2>/dev/null || rm -f "$work/$id/$side/$path"
    done
    (cd "$work" && PYTHONPATH=$tree python -m padlint check --output-format json --exit-zero --no-cache --jobs 1 \
      --timeout 0 "$id/$side" > "$id/$side.json" 2> "$id/$side.err")
  done
  echo "$id: $(python -c "import json,sys; print(len(json.load(open(sys.argv[1]))), len(json.load(open(sys.argv[2]))))" \
    "$work/$id/before.json" "$work/$id/after.json") findings before/after"
done
