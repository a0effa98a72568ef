#!/bin/bash
# Scan every extracted fresh27 repository with one padlint tree, one JSON report per repository.
# Usage: bench/fresh27/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options]
#   PADLINT_TREE  a checkout of padlint (put on PYTHONPATH), e.g. /work/main at the commit in README.md
#   SRC_DIR       one directory per repository, named as in repositories.csv (see ../validation/extract.sh)
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../scan_repositories.sh" "$here/vendored.txt" "$@"
