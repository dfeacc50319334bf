"""torchlint's rules, one module per rule. Installed as the `torchlint.rules` package."""
