#!/bin/bash
# Scan every extracted fresh2 repository with one padlint tree, one JSON report per repository.
# Usage: bench/fresh2/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options, e.g. --select ALL]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. `git archive` of the commit in README.md
#   SRC_DIR       one directory per repository, named as in repositories.csv (see ../validation/extract.sh)
# Vendored copies of other projects are left out (see README.md).
set -u
tree=$(cd "$1" && pwd); src=$2; out=$(mkdir -p "$3" && cd "$3" && pwd); shift 3
cd "$src" || exit 1
for name in */; do
  name=${name%/}
  vendored=()
  case $name in
    VILA) vendored=(--extend-exclude "VILA/llava/trl") ;;  # a copy of trl 0.7.11.dev0
    Qwen2.5-Coder) vendored=(--extend-exclude "Qwen2.5-Coder/qwencoder-eval/instruct/aider"  # a copy of aider
                             --extend-exclude "Qwen2.5-Coder/qwencoder-eval/base/benchmarks/evalplus") ;;  # evalplus
  esac
  PYTHONPATH=$tree python -m padlint check --output-format json --exit-zero --no-cache --jobs 1 --timeout 0 "${vendored[@]}" "$@" "$name" \
    > "$out/$name.json" 2> "$out/$name.err"
done
