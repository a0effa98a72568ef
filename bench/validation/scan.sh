#!/bin/bash
# Scan every extracted validation repository with one padlint tree, one JSON report per repository.
# Usage: bench/validation/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options, e.g. --select ALL]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. a worktree at the pinned commit
#   SRC_DIR       one directory per repository, named as in repositories.csv (see extract.sh)
# Vendored copies of libraries padlint was already run on are left out (vendored.txt, README.md).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../scan_repositories.sh" "$here/vendored.txt" "$@"
