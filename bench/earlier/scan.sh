#!/bin/bash
# Extract each repository of repositories.csv and scan it with two padlint trees, one at a time.
# Usage: bench/earlier/scan.sh BEFORE_TREE AFTER_TREE WORK_DIR [PADLINT_OPTION...]
#   BEFORE_TREE  a checkout of v0.1.0 (cfe3a07), AFTER_TREE a checkout of the main commit measured
#   WORK_DIR     gets src/NAME (the extracted HEAD), before/NAME.json, after/NAME.json and times.txt
#   PADLINT_OPTION...  passed to both scans, e.g. `--timeout 0` so a loaded machine skips no file
# Each repository must have been fetched first: the fetch tool's bare git directory /work/.mirror/OWNER+NAME/repo.
# A source directory or a scan already in WORK_DIR is kept, so an interrupted run resumes and one side
# can be re-scanned alone (delete its directory).
set -u
here=$(cd "$(dirname "$0")" && pwd)
before=$(cd "$1" && pwd); after=$(cd "$2" && pwd); work=$3
shift 3
mkdir -p "$work/src" "$work/before" "$work/after"
tail -n +2 "$here/repositories.csv" | tr -d '\r' | while IFS=, read -r name repository commit; do
  if [ ! -d "$work/src/$name" ]; then
    git_dir=/work/.mirror/${repository/\//+}/repo
    [ "$(git --git-dir="$git_dir" rev-parse HEAD)" = "$commit" ] || echo "$name: HEAD is not $commit" >&2
    bash "$here/../validation/extract.sh" "$git_dir" "$work/src/$name"
  fi
  for side in before after; do
    tree=$before; [ $side = after ] && tree=$after
    [ -s "$work/$side/$name.json" ] && continue
    start=$(date +%s)
    (cd "$work/src" && PYTHONPATH=$tree python -m padlint check --jobs 1 --no-cache --output-format json --exit-zero "$@" "$name" \
      > "$work/$side/$name.json" 2> "$work/$side/$name.err")
    echo "$name $side $(($(date +%s) - start))s" >> "$work/times.txt"
  done
done
