"""Browser tests (a package, so their Playwright session ends with them: see conftest.py)."""
