from torchlint.engine.rule import Rule


class ParseError(Rule):
    """## What it does
    Reports a file that torchlint cannot read as Python source: a syntax error, bytes that
    are not valid in the file's encoding, or a binary file.

    ## Why it matters
    A file that does not parse cannot be checked, so every other rule is silent on it. The
    other files are still checked.

    ## Example
    ```python
    def train(:
        ...
    ```

    ## Use instead
    Fix the syntax error, or declare the file's encoding with a PEP 263 coding line.

    ## Fix applicability
    None.
    """

    code = "TL000"
    impact = "high"
    name = "parse-error"
    summary = "The file cannot be parsed as Python source"
    severity = "error"
    requires_torch = False
    skips_test_code = False
    bad_examples = ("def train(:\n    pass\n",)
    good_examples = ("def train():\n    pass\n",)
