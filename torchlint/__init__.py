"""torchlint: a static analyzer for PyTorch performance anti-patterns."""

__version__ = "0.1.0"
