"""Shared semantic analyses that rules query instead of re-deriving: names, scopes, loops, values."""
