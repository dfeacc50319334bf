"""The linting engine: traversal, rule interface, file context, noqa, fixes, cache, runner."""
