"""Showing fixes: diffs of what `--fix` would write."""
