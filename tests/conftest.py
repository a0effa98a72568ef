"""Shared pytest configuration."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs external tools that install packages (deselect with -m 'not slow')")
