#!/bin/bash
# Extract each repository of repositories.csv and scan it with two padlint trees, one at a time.
# Usage: bench/earlier/scan.sh BEFORE_TREE AFTER_TREE WORK_DIR
#   BEFORE_TREE  a checkout of v0.1.0 (cfe3a07), AFTER_TREE a checkout of the main commit measured
#   WORK_DIR     gets src/NAME (the extracted HEAD), before/NAME.json, after/NAME.json and times.txt
# Each repository must have been fetched first: the fetch tool's bare git directory /work/.mirror/OWNER+NAME/repo.
set -u
here=$(cd "$(dirname "$0")" && pwd)
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); work=$3
mkdir -p "$work/src" "$work/before" "$work/after"
tail -n +2 "$here/repositories.csv" | while IFS=, read -r name repository commit; do
  git_dir=/work/.mirror/${repository/\//+}/repo
  [ "$(git --git-dir="$git_dir" rev-parse HEAD)" = "$commit" ] || echo "$name: HEAD is not $commit" >&2
  bash "$here/../validation/extract.sh" "$git_dir" "$work/src/$name"
  for side in before after; do
    tree=$before; [ $side = after ] && tree=$after
    start=$(date +%s)
    (cd "$work/src" && PYTHONPATH=$tree python -m padlint check --jobs 1 --no-cache --output-format json --exit-zero "$name" \
      > "$work/$side/$name.json" 2> "$work/$side/$name.err")
    echo "$name $side $(($(date +%s) - start))s" >> "$work/times.txt"
  done
done
