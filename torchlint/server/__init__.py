"""The language server behind `torchlint server` (needs the `server` extra: pygls)."""
