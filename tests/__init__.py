"""execrl's test suite (a package, so that ``tests.service._server`` is this one even where an
installed distribution ships a top-level ``tests`` package, as openrlhf's wheel does)."""
