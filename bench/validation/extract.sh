#!/bin/bash
# Write the text files (.py, .ipynb and configuration) of a bare repository's HEAD into a directory.
# Usage: bench/validation/extract.sh GIT_DIR DEST
# `git archive` stops at the first blob a partial snapshot lacks (large or LFS files); this skips them.
# An empty `.git` marks DEST as a checkout's root, as a clone is: without it padlint takes a root without
# a marker for a namespace package and its project for the folder above, which holds the other repositories.
set -u
git_dir=$1; dest=$2
rm -rf "$dest" && mkdir -p "$dest/.git"
git --git-dir="$git_dir" ls-tree -r -z HEAD | while IFS= read -r -d '' entry; do
  meta=${entry%%$'\t'*}; path=${entry#*$'\t'}
  read -r _mode kind object <<< "$meta"
  [ "$kind" = blob ] || continue
  case $path in *.py|*.ipynb|*.pyi|*.toml|*.cfg|*.txt|*.md|*.json|*.yaml|*.yml|*.sh) ;; *) continue ;; esac
  mkdir -p "$dest/$(dirname "$path")"
  git --git-dir="$git_dir" cat-file blob "$object" > "$dest/$path" 2> /dev/null || rm -f "$dest/$path"
done
