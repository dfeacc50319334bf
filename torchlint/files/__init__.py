"""Finding and reading source files: discovery, ignores, notebooks, decoding, writing."""
