"""Real-code precision benchmark: run torchlint over pinned repositories and score it.

Every finding is joined with the hand labels in ``labels.tsv`` (one line per
finding: TP, FP, debatable, or FN for a miss found by reading a file in full) and
counted per rule and per half of the benchmark (``dev`` to develop on, ``heldout``
to measure after a change is done, ``fresh`` for the newest batch, measured before and
after one round of work and then moved to ``dev``). See docs/precision.md for the method.

    python benchmarks/precision/run.py --extract-from-mirror /work/.mirror --half dev
    python benchmarks/precision/run.py --clone --half all --json
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from torchlint.semantics.project import configuration_file, declares_dependencies, launch_script

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REPOS_FILE = HERE / "repos.toml"
LABELS_FILE = HERE / "labels.tsv"
AUDITED_FILE = HERE / "audited.tsv"
DEFAULT_REPOS_DIR = HERE / "repos"
HALVES = ("dev", "heldout", "fresh", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33", "fresh34", "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41")
LABEL_KINDS = ("TP", "FP", "debatable", "FN")
LABEL_COLUMNS = ("repo", "path", "line", "code", "label", "reason")

# What torchlint reads: mirrors may lack the blobs of large data files.
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb", ".gitignore")

Key = tuple[str, str, int, str]  # repo, path, line, code


@dataclass(frozen=True)
class Repo:
    """One pinned repository of the benchmark."""

    name: str  # owner/name
    commit: str
    half: str
    kind: str

    @property
    def dirname(self) -> str:
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    code: str
    message: str

    @property
    def key(self) -> Key:
        return (self.repo, self.path, self.line, self.code)


@dataclass(frozen=True)
class Label:
    repo: str
    path: str
    line: int
    code: str
    label: str
    reason: str

    @property
    def key(self) -> Key:
        return (self.repo, self.path, self.line, self.code)


@dataclass
class RuleScore:
    """Counts for one rule on one half; see docs/precision.md for the definitions."""

    tp: int = 0
    fp: int = 0
    debatable: int = 0
    unlabelled: int = 0
    gone_tp: int = 0  # labelled TP (or FN) no longer reported: recall loss
    gone_fp: int = 0  # labelled FP no longer reported: fixed
    gone_debatable: int = 0
    audited_expected: int = 0  # real problems (TP or FN labels) in audited files
    audited_found: int = 0  # of those, reported now

    @property
    def precision(self) -> Optional[float]:
        judged = self.tp + self.fp
        return round(self.tp / judged, 3) if judged else None

    @property
    def recall(self) -> Optional[float]:
        if not self.audited_expected:
            return None
        return round(self.audited_found / self.audited_expected, 3)


@dataclass
class Report:
    halves: dict[str, dict[str, RuleScore]] = field(default_factory=dict)
    unlabelled: list[Finding] = field(default_factory=list)


def load_repos(path: Path = REPOS_FILE) -> list[Repo]:
    with path.open("rb") as handle:
        entries = tomllib.load(handle)["repo"]
    repos = [Repo(e["name"], e["commit"], e["half"], e.get("kind", "")) for e in entries]
    bad = [r.name for r in repos if r.half not in HALVES]
    if bad:
        raise SystemExit(f"repos.toml: unknown half for {', '.join(bad)}")
    return repos


def read_tsv(path: Path) -> list[dict[str, str]]:
    """Rows of a tab-separated file with a header; lines starting with '#' are comments."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        lines = [line for line in handle if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def load_labels(path: Path = LABELS_FILE) -> dict[Key, Label]:
    labels: dict[Key, Label] = {}
    for number, row in enumerate(read_tsv(path), start=2):
        label = Label(
            row["repo"], row["path"], int(row["line"]), row["code"], row["label"], row["reason"]
        )
        if label.label not in LABEL_KINDS:
            raise SystemExit(f"{path.name}: row {number}: unknown label {label.label!r}")
        if label.key in labels:
            raise SystemExit(f"{path.name}: row {number}: duplicate label for {label.key}")
        labels[label.key] = label
    return labels


def load_audited(path: Path = AUDITED_FILE) -> set[tuple[str, str]]:
    """(repo, path) of files read in full for recall."""
    return {(row["repo"], row["path"]) for row in read_tsv(path)}


def materialise(repo: Repo, repos_dir: Path, mirror: Optional[Path], clone: bool) -> None:
    """Put ``repo`` at its pinned commit under ``repos_dir`` unless it is there already; with
    a mirror, add to one that is there the files torchlint reads that it lacks (files of a
    kind torchlint has learnt to read since it was extracted: configuration files)."""
    dest = repos_dir / repo.dirname
    if dest.exists():
        if mirror is not None:
            git = ["git", f"--git-dir={_mirror_git_dir(mirror / repo.dirname)}"]
            missing = [name for name in _sources_present(git, repo) if not (dest / name).exists()]
            if missing:
                _extract(git, repo, missing, dest)
        return
    tmp = repos_dir / (repo.dirname + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if mirror is not None:
        git = ["git", f"--git-dir={_mirror_git_dir(mirror / repo.dirname)}"]
        _extract(git, repo, _sources_present(git, repo), tmp)
        # A repository root of its own, as a user's checkout is: torchlint then reads
        # the project's own .gitignore files and none of the directories above it.
        subprocess.run(["git", "init", "-q", str(tmp)], check=True)
    elif clone:
        url = f"https://github.com/{repo.name}.git"
        for args in (
            ["init", "-q"],
            ["fetch", "-q", "--depth", "1", url, repo.commit],
            ["checkout", "-q", "FETCH_HEAD"],
        ):
            subprocess.run(["git", "-C", str(tmp), *args], check=True)
    else:
        shutil.rmtree(tmp)
        raise SystemExit(
            f"{dest} is missing: pass --extract-from-mirror DIR or --clone to fetch it"
        )
    tmp.rename(dest)


def _extract(git: list[str], repo: Repo, names: list[str], dest: Path) -> None:
    """Extract the files ``names`` of the pinned commit into ``dest``."""
    archive = subprocess.run(
        [*git, "archive", repo.commit, "--", *(f":(literal){name}" for name in names)], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def _sources_present(git: list[str], repo: Repo) -> list[str]:
    """Source files at the commit whose content the mirror holds (a warning for others)."""
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", repo.commit],
        check=True, capture_output=True, text=True,
    ).stdout
    entries = [line.split("\t", 1) for line in listing.split("\0") if line]
    sources = [(meta.split()[2], name) for meta, name in entries if _read_by_torchlint(name)]
    check = subprocess.run(
        [*git, "cat-file", "--batch-check"],
        input="".join(f"{blob}\n" for blob, _ in sources),
        check=True, capture_output=True, text=True,
    ).stdout.splitlines()
    present = []
    for (_, name), line in zip(sources, check):
        if line.endswith("missing"):
            print(f"warning: {repo.name}: {name} is not in the mirror; skipped", file=sys.stderr)
        else:
            present.append(name)
    return present


def _read_by_torchlint(path: str) -> bool:
    """Sources, and the dependency, configuration and launch files the semantics read
    (requirements, setup, environments; YAML, and JSON named as configuration; shell scripts)."""
    directory, _, name = path.rpartition("/")
    return path.endswith(SOURCE_SUFFIXES) or declares_dependencies(directory, name) or configuration_file(directory, name) or launch_script(name)


def _mirror_git_dir(path: Path) -> Path:
    """A mirror holds a bare repository, itself or in a ``repo`` folder, or a clone there."""
    for candidate in (path / "repo" / ".git", path / "repo"):
        if candidate.is_dir():
            return candidate
    return path


def running_codes(preview: bool) -> frozenset[str]:
    """The rules a run scores: those it runs. The default run leaves out the preview rules and
    the opt-in advice (severity `info`), so their labels (misses included) count only in a
    `--preview` run, which runs every rule."""
    from torchlint.engine.rule import all_rules  # the torchlint being measured

    return frozenset(
        rule.code for rule in all_rules() if preview or not (rule.preview or rule.severity == "info")
    ) | {"TL000"}


def run_torchlint(
    repo: Repo, repos_dir: Path, preview: bool, select: Optional[str] = None
) -> list[Finding]:
    """Findings of the installed torchlint on one repository, default settings."""
    command = [sys.executable, "-m", "torchlint", "check", "--output-format", "json"]
    command += ["--no-cache", "--isolated", "--exit-zero"]
    # Every materialised file is tracked at the pinned commit, and torchlint checks tracked
    # files whatever the `.gitignore` files say; the materialised tree has no index to say so.
    command += ["--no-respect-gitignore"]
    if preview:
        command += ["--preview", "--extend-select", "ADVICE"]  # every rule: preview and opt-in advice
    if select:
        command += ["--select", select]
    command.append(".")
    result = subprocess.run(
        command, cwd=repos_dir / repo.dirname, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"{repo.name}: torchlint exited {result.returncode}: {result.stderr}")
    return [
        Finding(repo.name, _location(item), item["line"], item["code"], item["message"])
        for item in json.loads(result.stdout)
    ]


def _location(item: dict) -> str:
    """The path of a finding; a notebook's findings also name their cell."""
    path = item["path"].replace("\\", "/")
    return f"{path}#cell{item['cell']}" if item.get("cell") is not None else path


def score(
    repos: Iterable[Repo],
    findings: list[Finding],
    labels: dict[Key, Label],
    audited: set[tuple[str, str]],
) -> Report:
    """Join findings with labels and count them per half and rule."""
    report = Report()
    half_of = {repo.name: repo.half for repo in repos}
    found = {finding.key for finding in findings}
    scores: dict[str, dict[str, RuleScore]] = defaultdict(lambda: defaultdict(RuleScore))
    for finding in findings:
        rule = scores[half_of[finding.repo]][finding.code]
        label = labels.get(finding.key)
        if label is None:
            rule.unlabelled += 1
            report.unlabelled.append(finding)
        elif label.label in ("TP", "FN"):
            rule.tp += 1
        elif label.label == "FP":
            rule.fp += 1
        else:
            rule.debatable += 1
    for label in labels.values():
        if label.repo not in half_of:
            continue
        rule = scores[half_of[label.repo]][label.code]
        reported = label.key in found
        if label.label in ("TP", "FN") and (label.repo, _file(label.path)) in audited:
            rule.audited_expected += 1
            rule.audited_found += reported
        if reported or label.label == "FN":
            continue
        if label.label == "TP":
            rule.gone_tp += 1
        elif label.label == "FP":
            rule.gone_fp += 1
        else:
            rule.gone_debatable += 1
    report.halves = {half: dict(sorted(rules.items())) for half, rules in sorted(scores.items())}
    return report


def _file(path: str) -> str:
    return path.split("#cell", 1)[0]


def total(rules: dict[str, RuleScore]) -> RuleScore:
    summed = RuleScore()
    for rule in rules.values():
        for name, value in asdict(rule).items():
            setattr(summed, name, getattr(summed, name) + value)
    return summed


def _fmt(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_table(report: Report) -> None:
    header = ("rule", "TP", "FP", "deb", "unl", "precision", "goneTP", "goneFP", "recall")
    for half, rules in report.halves.items():
        print(f"\n## {half}\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for code, rule in [*rules.items(), ("all", total(rules))]:
            recall = f"{_fmt(rule.recall)} ({rule.audited_found}/{rule.audited_expected})"
            cells = (
                code,
                rule.tp,
                rule.fp,
                rule.debatable,
                rule.unlabelled,
                _fmt(rule.precision),
                rule.gone_tp,
                rule.gone_fp,
                recall if rule.audited_expected else "-",
            )
            print("| " + " | ".join(str(cell) for cell in cells) + " |")
    if report.unlabelled:
        print(f"\n## {len(report.unlabelled)} unlabelled findings\n")
        for finding in report.unlabelled:
            print(
                f"{finding.repo}\t{finding.path}\t{finding.line}\t{finding.code}\t{finding.message}"
            )


def to_json(report: Report) -> str:
    halves = {
        half: {
            code: {**asdict(rule), "precision": rule.precision, "recall": rule.recall}
            for code, rule in [*rules.items(), ("all", total(rules))]
        }
        for half, rules in report.halves.items()
    }
    unlabelled = [asdict(finding) for finding in report.unlabelled]
    return json.dumps({"halves": halves, "unlabelled": unlabelled}, indent=2)


def parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos-dir", type=Path, default=DEFAULT_REPOS_DIR,
                        help="where the repositories are, as <dir>/<owner>+<name>/")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--extract-from-mirror", type=Path, metavar="DIR",
                        help="materialise missing repositories from bare git mirrors "
                        "DIR/<owner>+<name>[/repo]")
    source.add_argument("--clone", action="store_true",
                        help="materialise missing repositories from GitHub")
    parser.add_argument("--half", choices=(*HALVES, "all"), default="dev")
    parser.add_argument("--preview", action="store_true", help="include preview rules and the opt-in advice")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--repo", action="append", default=[],
                        help="only this repository (owner/name); repeatable")
    parser.add_argument("--select", metavar="CODES",
                        help="only these rules (comma-separated codes or prefixes), "
                        "scoring only their labels")
    parser.add_argument("--list", choices=("TP", "FP", "debatable"), metavar="LABEL",
                        help="also list the findings with this label (TP, FP or debatable) "
                        "and their reasons; for the dev half")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    repos = [
        repo
        for repo in load_repos()
        if args.half in ("all", repo.half) and (not args.repo or repo.name in args.repo)
    ]
    labels = load_labels()
    findings: list[Finding] = []
    for repo in repos:
        materialise(repo, args.repos_dir, args.extract_from_mirror, args.clone)
        findings += run_torchlint(repo, args.repos_dir, args.preview, args.select)
    names = {repo.name for repo in repos}
    codes = tuple(args.select.split(",")) if args.select else ("",)
    running = running_codes(args.preview)
    labels = {
        key: label
        for key, label in labels.items()
        if label.repo in names and label.code.startswith(codes) and label.code in running
    }
    report = score(repos, findings, labels, load_audited())
    if args.json:
        print(to_json(report))
    else:
        print_table(report)
    if args.list:
        listed = [(f, labels[f.key]) for f in findings if f.key in labels and labels[f.key].label == args.list]
        print(f"\n## {len(listed)} findings labelled {args.list}\n")
        for finding, label in listed:
            print(f"{finding.repo}\t{finding.path}\t{finding.line}\t{finding.code}\t{label.reason}")
    counts = Counter(finding.code for finding in findings)
    print(f"{len(findings)} findings ({dict(sorted(counts.items()))}) in {len(repos)} "
          "repositories", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
