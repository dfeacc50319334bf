from torchlint.engine.findings import Applicability
from torchlint.engine.rule import Rule


class UnusedNoqa(Rule):
    """## What it does
    Reports a `# noqa: TL...` comment code that suppresses nothing, or that names no
    torchlint rule. The engine checks this after every other rule has run.

    ## Why it matters
    A suppression that no longer suppresses anything hides the next real finding on that
    line, and a mistyped code (`TL10` for `TL101`) suppresses nothing at all. Codes of rules
    that are not enabled for the file are not judged, blanket `# noqa` comments are left
    alone (other linters use them too), and only `TL` codes are considered, so
    `# noqa: E501, TL101` stays valid for flake8.

    ## Example
    ```python
    total = 0.0  # noqa: TL101
    ```

    ## Use instead
    ```python
    total = 0.0
    ```

    ## Fix applicability
    Safe: the fix removes the unused or unknown codes from the comment, or the whole
    `# noqa` directive when no code is left; words after the directive
    (`# noqa: TL9 because ...`) stay in a comment (`# because ...`).
    """

    code = "TL001"
    impact = "low"
    name = "unused-noqa"
    summary = "`# noqa` code that suppresses nothing or names no rule"
    fix_applicability = Applicability.SAFE
    requires_torch = False
    skips_test_code = False
    bad_examples = ("x = 1  # noqa: TL9999\n", "x = 1  # noqa: TL10, E501\n")
    good_examples = (
        "import torch\nfor x in loader:\n    total += model(x.cuda()).item()  # noqa: TL101\n",
        "x = 1  # noqa\n",
        "x = 1  # noqa: E501\n",
    )
