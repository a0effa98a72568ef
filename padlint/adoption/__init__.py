"""Adopting padlint on an existing codebase: `--add-noqa`, `--statistics`, baselines."""
