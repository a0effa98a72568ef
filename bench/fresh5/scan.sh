#!/bin/bash
# Scan every extracted fresh5 repository with one padlint tree, one JSON report per repository.
# Usage: bench/fresh5/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options, e.g. --select ALL]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. `git archive` of the commit in README.md
#   SRC_DIR       one directory per repository, named as in repositories.csv (see ../validation/extract.sh)
# Vendored copies of libraries are left out; the list below has the format of ../fresh4/vendored.txt
# (one line per repository: a comma-separated value, since padlint keeps only the last --extend-exclude).
here=$(cd "$(dirname "$0")" && pwd)
vendored=$(mktemp)
trap 'rm -f "$vendored"' EXIT
cat > "$vendored" <<'LIST'
3DAlgoLab+TinyVLA 3DAlgoLab+TinyVLA/packages  # copies of tf-agents, big_vision and language-table
KyuDan1+WhisperLlama KyuDan1+WhisperLlama/models/llama,KyuDan1+WhisperLlama/utils  # transformers' llama model and transformers/utils
dr-GitHub-account+cluener dr-GitHub-account+cluener/CLUENER2020/pytorch_version/models/transformers  # an old transformers copy
LIST
bash "$here/../scan_repositories.sh" "$vendored" "$@"
