#!/bin/bash
# Scan every extracted fresh52 repository with one padlint tree, one JSON report per repository.
# Usage: bench/fresh52/scan.sh PADLINT_TREE SRC_DIR OUT_DIR [extra padlint options]
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/../scan_repositories.sh" "$here/vendored.txt" "$@"
