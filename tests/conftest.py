"""Shared pytest configuration."""

