"""Tests for torchlint.files.gitignore and torchlint.files.discovery."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchlint.files.discovery import DEFAULT_EXCLUDE, DiscoveryResult, discover
from torchlint.files.gitignore import GitIgnore, parse_rule


def write(base: Path, *rel_paths: str, text: str = "") -> None:
    for rel in rel_paths:
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rels(result: DiscoveryResult, base: Path) -> list[str]:
    return [p.relative_to(base).as_posix() for p in result.files]


# --------------------------------------------------------------------------- gitignore


@pytest.mark.parametrize(
    ("patterns", "path", "is_dir", "expected"),
    [
        # bare names match at any depth; slashes anchor to the base directory
        (["foo"], "foo", False, True),
        (["foo"], "a/b/foo", True, True),
        (["foo"], "a/foobar", False, None),
        (["/foo"], "foo", False, True),
        (["/foo"], "a/foo", False, None),
        (["a/foo"], "a/foo", False, True),
        (["a/foo"], "x/a/foo", False, None),
        (["a/*.py"], "a/b/c.py", False, None),
        # '*' and '?' never cross '/'
        (["*.py"], "deep/er/x.py", False, True),
        (["a*z"], "a/z", False, None),
        (["a?c"], "abc", False, True),
        (["a?c"], "a/c", False, None),
        # '**'
        (["**/foo"], "foo", False, True),
        (["**/foo"], "x/y/foo", False, True),
        (["**/foo/bar"], "x/foo/bar", False, True),
        (["abc/**"], "abc/x/y.py", False, True),
        (["abc/**"], "abc", True, None),
        (["a/**/b"], "a/b", False, True),
        (["a/**/b"], "a/x/y/b", False, True),
        (["a/**/b"], "xa/x/b", False, None),
        (["a**b"], "a/b", False, None),
        (["a**b"], "axxb", False, True),
        (["**"], "any/thing", False, True),
        # directory-only patterns
        (["out/"], "out", True, True),
        (["out/"], "out", False, None),
        (["out/"], "src/out", True, True),
        (["src/out/"], "x/src/out", True, None),
        # character classes
        (["[abc].py"], "b.py", False, True),
        (["[abc].py"], "d.py", False, None),
        (["[a-c]x"], "bx", False, True),
        (["[!a-c]x"], "dx", False, True),
        (["[!a-c]x"], "ax", False, None),
        (["[^a]x"], "bx", False, True),
        (["[]]x"], "]x", False, True),
        (["[[:digit:]]x"], "7x", False, True),
        (["[[:digit:]]x"], "ax", False, None),
        (["a[!b]c"], "a/c", False, None),
        (["[abc"], "[abc", False, None),  # unclosed class: never matches, like git
        # escapes, comments and trailing spaces
        (["\\#x"], "#x", False, True),
        (["#x"], "#x", False, None),
        (["\\!x"], "!x", False, True),
        (["x\\*"], "x*", False, True),
        (["x\\*"], "xy", False, None),
        (["foo  "], "foo", False, True),
        (["foo\\ "], "foo ", False, True),
        (["foo\\ "], "foo", False, None),
        (["foo\r"], "foo", False, True),
        # negation: the last matching pattern wins
        (["*.py", "!keep.py"], "keep.py", False, False),
        (["!keep.py", "*.py"], "keep.py", False, True),
        (["*.py", "!keep.py"], "other.py", False, True),
        (["!keep.py"], "other.py", False, None),
    ],
)
def test_gitignore_match(
    patterns: list[str], path: str, is_dir: bool, expected: bool | None
) -> None:
    assert GitIgnore.from_lines(patterns, "/base").match(path, is_dir) is expected


@pytest.mark.parametrize("line", ["", "   ", "# comment", "!", "/", "[unclosed", "trailing\\"])
def test_parse_rule_skips_blank_comment_and_invalid(line: str) -> None:
    assert parse_rule(line) is None


def test_gitignore_from_file_defaults_base_and_replaces_bad_utf8(tmp_path: Path) -> None:
    path = tmp_path / ".gitignore"
    path.write_bytes(b"\xef\xbb\xbf*.log\n\xff\xfe junk\n/build\n")
    ignore = GitIgnore.from_file(path)
    assert ignore.base_dir == tmp_path.as_posix()
    assert ignore.match("x/a.log", False) is True
    assert ignore.match("build", True) is True
    assert ignore.match("x/build", True) is None


# --------------------------------------------------------------------------- discovery


def test_default_excludes(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pkg/a.py",
        "pkg/__pycache__/c.py",
        "build/b.py",
        "pkg/build/b.py",
        ".venv/lib/v.py",
        "myenv/lib/site.py",
        "foo.egg-info/e.py",
        "node_modules/n.py",
        "notebooks/.virtual_documents/nb.ipynb",
    )
    write(tmp_path, "myenv/pyvenv.cfg")
    result = discover([tmp_path], root=tmp_path)
    assert rels(result, tmp_path) == ["pkg/a.py"]
    assert result.errors == []


def test_replacing_exclude_drops_defaults_and_venv_detection(tmp_path: Path) -> None:
    write(tmp_path, "build/b.py", "myenv/lib/site.py", "gen/g.py")
    write(tmp_path, "myenv/pyvenv.cfg")
    result = discover([tmp_path], root=tmp_path, exclude=["gen"])
    assert rels(result, tmp_path) == ["build/b.py", "myenv/lib/site.py"]


def test_venv_named_explicitly_is_walked(tmp_path: Path) -> None:
    write(tmp_path, "myenv/pyvenv.cfg", "myenv/lib/site.py")
    result = discover([tmp_path / "myenv"], root=tmp_path)
    assert rels(result, tmp_path) == ["myenv/lib/site.py"]
    assert discover([tmp_path / "myenv"], root=tmp_path, force_exclude=True).files == []


def test_extend_exclude_anchored_and_bare(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pkg/gen/x.py",
        "other/pkg/gen/x.py",
        "pkg/fixtures/f.py",
        "deep/er/fixtures/f.py",
        "pkg/ok.py",
        "build/b.py",
    )
    result = discover([tmp_path], root=tmp_path, extend_exclude=["./pkg/gen", "fixtures"])
    assert rels(result, tmp_path) == ["other/pkg/gen/x.py", "pkg/ok.py"]


def test_exclude_is_relative_to_root_not_to_given_path(tmp_path: Path) -> None:
    write(tmp_path, "proj/sub/skip/a.py", "proj/sub/keep/b.py", "proj/skip/c.py")
    result = discover([tmp_path / "proj" / "sub"], root=tmp_path / "proj", exclude=["sub/skip"])
    assert rels(result, tmp_path) == ["proj/sub/keep/b.py"]


def test_double_star_exclude(tmp_path: Path) -> None:
    write(tmp_path, "a/migrations/m.py", "a/b/migrations/m.py", "a/models.py", "migrations.py")
    result = discover([tmp_path], root=tmp_path, exclude=["**/migrations/*.py"])
    assert rels(result, tmp_path) == ["a/models.py", "migrations.py"]


def test_explicit_file_always_checked_unless_force_exclude(tmp_path: Path) -> None:
    write(tmp_path, "build/b.py", "script", "gen.py")
    write(tmp_path, ".gitignore", text="ignored.py\n")
    write(tmp_path, "ignored.py")
    named = [tmp_path / rel for rel in ("build/b.py", "script", "gen.py", "ignored.py")]
    result = discover(named, root=tmp_path, extend_exclude=["gen.py"])
    assert rels(result, tmp_path) == ["build/b.py", "gen.py", "ignored.py", "script"]
    forced = discover(named, root=tmp_path, extend_exclude=["gen.py"], force_exclude=True)
    assert rels(forced, tmp_path) == ["script"]
    no_git = discover(named, root=tmp_path, force_exclude=True, respect_gitignore=False)
    assert rels(no_git, tmp_path) == ["gen.py", "ignored.py", "script"]


def test_explicit_directory_is_walked_unless_force_exclude(tmp_path: Path) -> None:
    write(tmp_path, "build/b.py", "build/__pycache__/c.py")
    assert rels(discover([tmp_path / "build"], root=tmp_path), tmp_path) == ["build/b.py"]
    assert discover([tmp_path / "build"], root=tmp_path, force_exclude=True).files == []


def test_nested_gitignore_with_negation(tmp_path: Path) -> None:
    write(tmp_path, "x.gen.py", "sub/keep.gen.py", "sub/other.gen.py", "sub/local.py", "local.py")
    write(tmp_path, ".gitignore", text="*.gen.py\n")
    write(tmp_path, "sub/.gitignore", text="!keep.gen.py\nlocal.py\n")
    result = discover([tmp_path], root=tmp_path)
    assert rels(result, tmp_path) == ["local.py", "sub/keep.gen.py"]
    unfiltered = discover([tmp_path], root=tmp_path, respect_gitignore=False)
    assert len(unfiltered.files) == 5


def test_file_in_ignored_directory_cannot_be_reincluded(tmp_path: Path) -> None:
    write(tmp_path, "out/keep.py", "out/deep/keep.py", "src/keep.py")
    write(tmp_path, ".gitignore", text="out/\n!out/keep.py\n!keep.py\n")
    write(tmp_path, "out/.gitignore", text="!keep.py\n")
    result = discover([tmp_path], root=tmp_path)
    assert rels(result, tmp_path) == ["src/keep.py"]


def test_deeper_gitignore_takes_precedence(tmp_path: Path) -> None:
    write(tmp_path, "a/gen/x.py", "b/gen/x.py")
    write(tmp_path, ".gitignore", text="gen/\n")
    write(tmp_path, "a/.gitignore", text="!gen/\n")
    assert rels(discover([tmp_path], root=tmp_path), tmp_path) == ["a/gen/x.py"]


def test_ancestor_gitignores_up_to_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(tmp_path, ".gitignore", text="ok.py\n")  # above the repository: not used
    write(repo, ".gitignore", text="ignored_*.py\n")
    write(repo, ".git/info/exclude", text="secret.py\n")
    write(repo, "proj/.gitignore", text="/src/local/\n")
    write(repo, "proj/src/ok.py", "proj/src/ignored_a.py", "proj/src/secret.py")
    write(repo, "proj/src/local/l.py")
    result = discover([repo / "proj" / "src"], root=repo / "proj")
    assert rels(result, repo) == ["proj/src/ok.py"]


def test_git_file_pointing_to_git_dir(tmp_path: Path) -> None:
    write(tmp_path, "gitdirs/wt/info/exclude", text="secret.py\n")
    write(tmp_path, "wt/.git", text="gitdir: ../gitdirs/wt\n")
    write(tmp_path, "wt/src/secret.py", "wt/src/ok.py")
    result = discover([tmp_path / "wt" / "src"], root=tmp_path / "wt")
    assert rels(result, tmp_path) == ["wt/src/ok.py"]


def test_without_repository_only_root_and_walked_gitignores(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    write(tmp_path, ".gitignore", text="a.py\n")  # above root, no repository
    write(proj, ".gitignore", text="b.py\n")
    write(proj, "src/.gitignore", text="c.py\n")
    write(proj, "src/a.py", "src/b.py", "src/c.py", "src/d.py")
    result = discover([proj / "src"], root=proj)
    assert rels(result, proj) == ["src/a.py", "src/d.py"]


def test_nested_repository_starts_fresh(tmp_path: Path) -> None:
    write(tmp_path, ".git/HEAD", ".gitignore", text="x.py\n")
    write(tmp_path, "vendor/lib/.git/HEAD", "vendor/lib/x.py", "x.py")
    assert rels(discover([tmp_path], root=tmp_path), tmp_path) == ["vendor/lib/x.py"]


def test_directory_only_gitignore_pattern(tmp_path: Path) -> None:
    write(tmp_path, "gen.py/a.py", "sub/gen.py")
    write(tmp_path, ".gitignore", text="gen.py/\n")
    assert rels(discover([tmp_path], root=tmp_path), tmp_path) == ["sub/gen.py"]


def test_double_star_gitignore(tmp_path: Path) -> None:
    write(tmp_path, "docs/conf.py", "docs/a/b/conf.py", "src/conf.py", "logs/x/y.py")
    write(tmp_path, ".gitignore", text="docs/**/conf.py\nlogs/**\n")
    assert rels(discover([tmp_path], root=tmp_path), tmp_path) == ["src/conf.py"]


def test_invalid_utf8_gitignore_is_tolerated(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "b.py")
    (tmp_path / ".gitignore").write_bytes(b"\xff\xfe\n# \x80\x81\nb.py\n")
    result = discover([tmp_path], root=tmp_path)
    assert rels(result, tmp_path) == ["a.py"]
    assert result.errors == []


def test_symlink_loop_terminates_without_duplicates(tmp_path: Path) -> None:
    write(tmp_path, "a/x.py", "a/b/y.py")
    os.symlink(tmp_path / "a", tmp_path / "a" / "b" / "loop")
    os.symlink("b", tmp_path / "a" / "alias")
    result = discover([tmp_path], root=tmp_path)
    assert rels(result, tmp_path) == ["a/b/y.py", "a/x.py"]
    assert result.errors == []


def test_symlinked_file_and_directory_outside_tree(tmp_path: Path) -> None:
    write(tmp_path, "outside/o.py", "proj/a.py")
    os.symlink(tmp_path / "outside", tmp_path / "proj" / "ext")
    os.symlink("a.py", tmp_path / "proj" / "a_link.py")
    os.symlink(tmp_path / "outside" / "o.py", tmp_path / "proj" / "o_link.py")
    result = discover([tmp_path / "proj"], root=tmp_path / "proj")
    assert rels(result, tmp_path) == ["proj/a.py", "proj/ext/o.py"]


def test_broken_symlink_skipped_in_walk_reported_when_named(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    walked = discover([tmp_path], root=tmp_path)
    assert rels(walked, tmp_path) == ["a.py"]
    assert walked.errors == []
    named = discover([tmp_path / "dangling.py"], root=tmp_path)
    assert named.files == []
    assert named.errors == [f"torchlint: error: {tmp_path / 'dangling.py'}: no such file or directory"]


def test_missing_path_reports_error_and_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.py")
    monkeypatch.chdir(tmp_path)
    result = discover([Path("nope.py"), Path("a.py")], root=tmp_path)
    assert result.files == [Path("a.py")]
    assert result.errors == ["torchlint: error: nope.py: no such file or directory"]


def test_unreadable_directory_reports_error_and_continues(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "locked/a.py", "open/b.py")
    real_scandir = os.scandir

    def scandir(path: str):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    result = discover([Path(".")], root=tmp_path)
    assert result.files == [Path("open/b.py")]
    assert result.errors == ["torchlint: error: locked: permission denied"]


def test_extensions_filter(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "b.pyi", "c.ipynb", "d.txt", "e.pyc")
    assert rels(discover([tmp_path], root=tmp_path), tmp_path) == ["a.py"]
    result = discover([tmp_path], root=tmp_path, extensions=(".py", ".pyi", ".ipynb"))
    assert rels(result, tmp_path) == ["a.py", "b.pyi", "c.ipynb"]


def test_paths_are_given_relative_sorted_and_unique(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "src/z.py", "src/a.py", "src/m/b.py", "src/m.py", "tests/t.py")
    monkeypatch.chdir(tmp_path)
    given = [Path("tests"), Path("./src/"), Path("src/a.py"), Path("src")]
    result = discover(given, root=tmp_path)
    assert result.files == [
        Path("src/a.py"),
        Path("src/m/b.py"),
        Path("src/m.py"),
        Path("src/z.py"),
        Path("tests/t.py"),
    ]
    assert discover([Path(".")], root=tmp_path).files == result.files
    absolute = tmp_path / "src" / "a.py"
    assert discover([absolute], root=tmp_path).files == [absolute]


def test_default_exclude_contents() -> None:
    expected = {".git", ".venv", "venv", "build", "dist", "__pycache__", "*.egg-info"}
    assert expected <= set(DEFAULT_EXCLUDE)
