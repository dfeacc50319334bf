"""The rule plug-in interface: a rule is a small class with metadata and node handlers."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar, Dict, FrozenSet, List, Optional, Tuple, Type

from torchlint.engine.findings import Applicability
from torchlint.engine.reports import NodeEdit, PendingFix, Report

if TYPE_CHECKING:
    import libcst as cst

    from torchlint.engine.context import FileContext
    from torchlint.semantics.frequency import Frequency

DOCS_PAGE = "docs/rules/{code}.md"
# Severities from least to most severe; `--min-severity` keeps rules at or above one.
SEVERITIES = ("info", "warning", "error")
# What a finding costs, from least to most (see the README's "Impact levels"); `--min-impact`
# keeps rules at or above one. high: a large fraction of step time (a sync or a blocking wait
# every step, no loader workers); medium: a measurable share of step time or memory; low:
# advice whose gain is small or depends on the model.
IMPACTS = ("low", "medium", "high")


class Rule:
    """Base class of all rules. Subclasses set the metadata and define `visit_<Node>`/`leave_<Node>`.

    One instance is created per checked file, so a rule may keep per-file state on `self`.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    fix_applicability: ClassVar[Applicability] = Applicability.NONE
    # For a rule whose fix is safe by default: when it offers an unsafe fix instead.
    unsafe_when: ClassVar[str] = ""
    # "error", "warning" or "info" (advice whose evidence is project-wide).
    severity: ClassVar[str] = "warning"
    # One of IMPACTS; every rule states its own.
    impact: ClassVar[str] = ""
    # Code that must produce exactly one finding of this rule / no finding of it.
    bad_examples: ClassVar[Tuple[str, ...]] = ()
    good_examples: ClassVar[Tuple[str, ...]] = ()
    # Most rules only make sense in files that import torch; the engine drops their reports elsewhere.
    requires_torch: ClassVar[bool] = True
    # Substrings of which a file must contain at least one for the rule to report anything
    # there; files with none of any enabled rule's triggers are not parsed. Empty: always run.
    triggers: ClassVar[Tuple[str, ...]] = ()
    # Performance rules are silent in test and benchmark code (see `semantics.roles`) unless
    # the configuration sets `lint-test-code = true`.
    skips_test_code: ClassVar[bool] = True
    # How often code must run for the rule to report it (see `semantics.frequency`); None: any.
    frequencies: ClassVar[Optional[FrozenSet[Frequency]]] = None
    # Rules whose measured precision is not yet good enough run only with `--preview`.
    preview: ClassVar[bool] = False
    # A stable rule may have a preview variant: a kind of finding measured below the bar,
    # reported only in preview mode (see `withholds_preview_variant`). Its docs name the variant.
    preview_variant: ClassVar[str] = ""

    _registry: ClassVar[Dict[str, Type["Rule"]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code:
            Rule._registry[cls.code] = cls

    def __init__(self, ctx: "FileContext") -> None:
        self.ctx = ctx

    @classmethod
    def may_apply(cls, text: str) -> bool:
        """A cheap textual pre-check: False when the rule cannot report anything in `text`."""
        if cls.requires_torch and "torch" not in text and "lightning" not in text and ".backward(" not in text:
            return False  # (`import lightning as L` makes a PyTorch file too, and so may a backward pass)
        return not cls.triggers or any(trigger in text for trigger in cls.triggers)

    @classmethod
    def doc_url(cls) -> str:
        """The rule's documentation page, relative to the torchlint repository (`docs/rules/`).

        The same text is available offline with `torchlint rule CODE`.
        """
        return DOCS_PAGE.format(code=cls.code)

    @classmethod
    def fix_label(cls) -> str:
        """The fix applicability as users read it: "safe", "unsafe", "none", or
        "safe (unsafe when ...)" for a rule whose fix is safe only in some cases."""
        return fix_label(cls.fix_applicability.value, cls.unsafe_when)

    @classmethod
    def tier_note(cls) -> str:
        """The tier as a sentence ('' for a stable rule without a preview variant); advice
        (severity info) says it is opt-in."""
        notes = []
        if cls.preview:
            notes.append("Preview: runs only with --preview.")
        elif cls.preview_variant:
            notes.append(f"Preview variant, reported only with --preview: {cls.preview_variant}.")
        if cls.severity == "info":
            notes.append("Advice: opt-in (`--extend-select ADVICE`), and never sets exit code 1.")
        return " ".join(notes)

    @classmethod
    def documentation(cls) -> str:
        return _dedent_doc(cls.__doc__ or cls.summary)

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        fix: Optional[PendingFix] = None,
        start: Optional[cst.CSTNode] = None,
    ) -> None:
        if self.in_skipped_code() or self.ctx.frequency.never_runs(node):
            return  # test code the rule skips, or code that no run of the project reaches
        self.ctx.reports.append(Report(self, node, message, fix, start))

    def in_skipped_code(self) -> bool:
        """Whether the node being visited is test code this rule is silent in. `report` asks
        it; a rule that reports later (from `leave_Module`) asks while visiting."""
        return self.skips_test_code and not self.ctx.options.lint_test_code and self.ctx.in_test_code()

    def withholds_preview_variant(self) -> bool:
        """Whether a finding of the rule's preview variant is to be dropped (preview mode is off)."""
        return not self.ctx.options.preview

    def runs_often(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs as often as the rule's `frequencies` require."""
        return self.frequencies is None or self.ctx.execution(node).frequency in self.frequencies

    def fix(
        self, *edits: NodeEdit, applicability: Optional[Applicability] = None, message: str = "", reason: str = ""
    ) -> PendingFix:
        """Build a fix with this rule's default applicability unless one is given; `reason`
        says why it is unsafe."""
        return PendingFix(applicability or self.fix_applicability, edits, message, reason)

    def unsafe_fix(self, reason: str, *edits: NodeEdit, message: str = "") -> PendingFix:
        """A fix downgraded to unsafe because the precondition `reason` names cannot be shown."""
        return PendingFix(Applicability.UNSAFE, edits, message, reason)

    @staticmethod
    def withheld(reason: str) -> PendingFix:
        """No fix, because of `reason`; the finding says so."""
        return PendingFix(Applicability.NONE, (), "", reason)


def fix_label(applicability: str, unsafe_when: str) -> str:
    return f"{applicability} (unsafe {unsafe_when})" if unsafe_when else applicability


def all_rules() -> List[Type[Rule]]:
    """Every registered rule class, sorted by code. Imports the `torchlint.rules` package once."""
    package = rules_package()
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return [Rule._registry[code] for code in sorted(Rule._registry)]


def rules_package() -> ModuleType:
    """The `torchlint.rules` package. Installed, it sits inside `torchlint`; in a source
    checkout imported from its root (`python -m torchlint` there), it is the `rules/`
    directory beside the `torchlint/` package, which is loaded under the same name."""
    try:
        return importlib.import_module("torchlint.rules")
    except ModuleNotFoundError:
        source = Path(__file__).resolve().parents[2] / "rules" / "__init__.py"
        if not source.is_file():
            raise
        spec = importlib.util.spec_from_file_location("torchlint.rules", source, submodule_search_locations=[str(source.parent)])
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules["torchlint.rules"] = package
        spec.loader.exec_module(package)
        return package


def _dedent_doc(doc: str) -> str:
    lines = doc.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    body = [lines[0].strip()] + [line[margin:] for line in lines[1:]]
    return "\n".join(body).strip() + "\n"
