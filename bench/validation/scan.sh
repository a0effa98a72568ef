#!/bin/bash
# Scan every extracted validation repository with one padlint tree, one JSON report per repository.
# Usage: bench/validation/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options, e.g. --select ALL]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. a worktree at the pinned commit
#   SRC_DIR       one directory per repository, named as in repositories.csv (see extract.sh)
# Vendored copies of libraries padlint was already run on are left out (see README.md).
set -u
tree=$(cd "$1" && pwd); src=$2; out=$(mkdir -p "$3" && cd "$3" && pwd); shift 3
cd "$src" || exit 1
for name in */; do
  name=${name%/}
  vendored=()
  case $name in
    LoRA) vendored=(--extend-exclude "LoRA/examples/NLU") ;;  # a copy of transformers
    LLM-Adapters) vendored=(--extend-exclude "LLM-Adapters/peft") ;;  # a copy of peft
    # a copy of trl; a copy of EasyR1's fork of volcengine/verl (reserved: never scanned or read)
    LLaVA-NeXT) vendored=(--extend-exclude "LLaVA-NeXT/trl" --extend-exclude "LLaVA-NeXT/llava-critic-r1/EasyR1") ;;
  esac
  PYTHONPATH=$tree python -m padlint check --output-format json --exit-zero --no-cache --jobs 1 --timeout 0 "${vendored[@]}" "$@" "$name" \
    > "$out/$name.json" 2> "$out/$name.err"
done
