"""`torchlint server` driven over stdio by a real LSP client (pytest-lsp), as an editor would."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import pytest

pytest.importorskip("pygls")
import pytest_lsp  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client  # noqa: E402

from torchlint.config import DEFAULT_DOCS_URL  # noqa: E402
from torchlint.engine.fixer import fix_text  # noqa: E402
from torchlint.engine.rule import all_rules  # noqa: E402
from torchlint.files.source import physical_lines  # noqa: E402
from torchlint.server.documents import Part, Snapshot  # noqa: E402
from torchlint.server.server import TorchlintServer  # noqa: E402
from torchlint.server.settings import EditorSettings, setup_for  # noqa: E402
from conftest import preview_options



def _client() -> LanguageClient:
    """pytest-lsp's client, reading a code action with a command as VS Code does: lsprotocol
    takes any object with a `command` key for a Command, even when it is a CodeAction's."""
    client = make_test_lsp_client()
    converter = client.protocol._converter

    def command_or_action(value: Any, _: type) -> Union[types.Command, types.CodeAction]:
        return converter.structure(value, types.Command if isinstance(value.get("command"), str) else types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], command_or_action)
    return client


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "torchlint", "server"], client_factory=_client)

TRAIN = textwrap.dedent(
    """\
    import torch
    from torch.utils.data import DataLoader


    def train(model, dataset, optimizer):
        device = torch.device("cuda")
        loader = DataLoader(dataset, batch_size=32)
        total = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = model(x, y)
            scaler = torch.cuda.amp.GradScaler()
            loss.backward()
            optimizer.step()
            total += loss.item()
        return total
    """
)

PREVIEW = {"preview": True}


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("project")
    registrations: List[types.Registration] = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    # The tests exercise preview rules too (TL101, TL201), as an editor with preview on would.
    lsp_client.set_configuration(PREVIEW, section="torchlint")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(), initialization_options=PREVIEW
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.registrations = registrations  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str, timeout: float = 15.0) -> List[types.Diagnostic]:
    """Wait for the next diagnostics published for `uri`."""
    for _ in range(int(timeout / 0.02)):
        if uri in client.diagnostics:
            return list(client.diagnostics.pop(uri))
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri}")


async def _open(client: LanguageClient, name: str, text: str) -> str:
    path = client.root / name  # type: ignore[attr-defined]
    path.write_text(text)
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    return uri


def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _offset(lines: Sequence[str], position: types.Position) -> int:
    return sum(len(line) for line in lines[: position.line]) + position.character


def _apply(text: str, edit: types.WorkspaceEdit, uri: str) -> str:
    """Apply a workspace edit's changes to one document, as a client does (ASCII text only)."""
    edits: List[types.TextEdit] = []
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        if change.text_document.uri == uri:
            edits += change.edits  # type: ignore[arg-type]
    lines = physical_lines(text, keepends=True)
    spans = sorted(((_offset(lines, e.range.start), _offset(lines, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def _by_code(diagnostics: Sequence[types.Diagnostic]) -> Dict[str, types.Diagnostic]:
    return {str(d.code): d for d in diagnostics}


async def _actions(client: LanguageClient, uri: str, where: types.Range, only: Optional[List[str]] = None) -> List[types.CodeAction]:
    params = types.CodeActionParams(types.TextDocumentIdentifier(uri), where, types.CodeActionContext([], only=only))
    result = await client.text_document_code_action_async(params)
    return [action for action in result or [] if isinstance(action, types.CodeAction)]


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_carry_code_link_severity_and_fix(client: LanguageClient) -> None:
    uri = await _open(client, "diagnostics.py", TRAIN)
    found = _by_code(await _diagnostics(client, uri))
    assert {"TL101", "TL201", "TL602"} <= set(found)
    item = found["TL101"]
    assert item.source == "torchlint" and item.severity == types.DiagnosticSeverity.Warning
    assert item.range.start.line == 14 and TRAIN.splitlines()[14][item.range.start.character :].startswith("item()")
    assert item.code_description is not None and item.code_description.href == DEFAULT_DOCS_URL.format(code="TL101")
    fix = found["TL602"].data["fix"]
    assert fix["applicability"] == "safe" and fix["edits"][0]["range"]["start"]["line"] == 11


@pytest.mark.asyncio(loop_scope="module")
async def test_a_file_whose_uri_quotes_characters_gets_diagnostics(client: LanguageClient) -> None:
    uri = await _open(client, "train+eval 1.py", TRAIN)  # `file:///.../train%2Beval%201.py`
    assert "%2B" in uri and "TL101" in _by_code(await _diagnostics(client, uri))
    _change(client, uri, 2, TRAIN.replace("total += loss.item()", "total += loss"))
    assert "TL101" not in _by_code(await _diagnostics(client, uri))


@pytest.mark.asyncio(loop_scope="module")
async def test_quick_fix_applies_and_clears_the_finding(client: LanguageClient) -> None:
    uri = await _open(client, "quickfix.py", TRAIN)
    target = _by_code(await _diagnostics(client, uri))["TL602"]
    actions = await _actions(client, uri, target.range, [types.CodeActionKind.QuickFix])
    fix = next(a for a in actions if a.edit is not None and "noqa" not in a.title)
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    fixed = _apply(TRAIN, fix.edit, uri)  # type: ignore[arg-type]
    assert 'torch.amp.GradScaler("cuda")' in fixed and "torch.cuda.amp" not in fixed
    _change(client, uri, 2, fixed)
    assert "TL602" not in _by_code(await _diagnostics(client, uri))


@pytest.mark.asyncio(loop_scope="module")
async def test_unsafe_fix_is_labelled_and_noqa_and_docs_are_offered(client: LanguageClient) -> None:
    uri = await _open(client, "actions.py", TRAIN)
    found = _by_code(await _diagnostics(client, uri))
    actions = await _actions(client, uri, found["TL201"].range)
    unsafe = [a for a in actions if a.edit is not None and "noqa" not in a.title and a.diagnostics[0].code == "TL201"]
    assert len(unsafe) == 1 and "(unsafe" in unsafe[0].title and not unsafe[0].is_preferred
    target = found["TL101"]
    titles = {a.title: a for a in await _actions(client, uri, target.range)}
    noqa = titles["Add `# noqa: TL101` on this line"]
    suppressed = _apply(TRAIN, noqa.edit, uri)  # type: ignore[arg-type]
    assert suppressed.splitlines()[14] == "        total += loss.item()  # noqa: TL101"
    show = titles["Show documentation for TL101 (sync-in-loop)"]
    assert show.command is not None
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(show.command.command, arguments=show.command.arguments)
    )
    shown = client.shown_documents[-1].uri
    assert shown.endswith("TL101.md") and "# TL101 sync-in-loop" in Path(shown[len("file://") :]).read_text()


@pytest.mark.asyncio(loop_scope="module")
async def test_fix_all_matches_check_fix(client: LanguageClient) -> None:
    uri = await _open(client, "fixall.py", TRAIN)
    await _diagnostics(client, uri)
    where = types.Range(types.Position(0, 0), types.Position(0, 0))
    (action,) = await _actions(client, uri, where, ["source.fixAll"])
    assert action.kind == "source.fixAll.torchlint"
    resolved = await client.code_action_resolve_async(action)
    expected = fix_text(TRAIN, "fixall.py", all_rules(), preview_options(), unsafe=False).text
    assert expected != TRAIN and _apply(TRAIN, resolved.edit, uri) == expected  # type: ignore[arg-type]


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_explains_the_rule(client: LanguageClient) -> None:
    uri = await _open(client, "hover.py", TRAIN)
    target = _by_code(await _diagnostics(client, uri))["TL101"]
    result = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), target.range.start))
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    text = result.contents.value
    assert "**TL101 sync-in-loop**" in text and "Why is this slow?" in text and "blocks the Python thread" in text
    nothing = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 0)))
    assert nothing is None


@pytest.mark.asyncio(loop_scope="module")
async def test_a_file_that_does_not_parse(client: LanguageClient) -> None:
    uri = await _open(client, "broken.py", "import torch\ndef f(:\n")
    (item,) = await _diagnostics(client, uri)
    assert item.code == "TL000" and item.severity == types.DiagnosticSeverity.Error and item.range.start.line == 1
    titles = [a.title for a in await _actions(client, uri, item.range)]
    assert titles == ["Show documentation for TL000 (parse-error)"]
    _change(client, uri, 2, "import torch\n")
    assert await _diagnostics(client, uri) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_notebook_cells_get_their_own_diagnostics(client: LanguageClient) -> None:
    notebook_uri = (client.root / "train.ipynb").as_uri()  # type: ignore[attr-defined]
    loop = "for x in loader:\n    x = x.to(device)\n    print(x.sum().item())\n    scaler = torch.cuda.amp.GradScaler()\n    optimizer.step()\n"
    sources = ["import torch\ndevice = torch.device('cuda')\n", "# Training\n", loop]
    cells = [f"{notebook_uri}#cell{i}" for i in range(3)]
    kinds = [types.NotebookCellKind.Code, types.NotebookCellKind.Markup, types.NotebookCellKind.Code]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            types.NotebookDocument(notebook_uri, "jupyter-notebook", 1, [types.NotebookCell(k, c) for k, c in zip(kinds, cells)]),
            [types.TextDocumentItem(c, "python" if k == types.NotebookCellKind.Code else "markdown", 1, s) for c, k, s in zip(cells, kinds, sources)],
        )
    )
    assert await _diagnostics(client, cells[0]) == []
    found = _by_code(await _diagnostics(client, cells[2]))
    assert set(found) == {"TL101", "TL602"} and found["TL101"].range.start.line == 2
    (action,) = await _actions(client, cells[2], found["TL602"].range, ["source.fixAll"])
    resolved = await client.code_action_resolve_async(action)
    assert [change.text_document.uri for change in resolved.edit.document_changes] == [cells[2]]  # type: ignore[union-attr]
    assert _apply(loop, resolved.edit, cells[2]) == loop.replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")')  # type: ignore[arg-type]


@pytest.mark.asyncio(loop_scope="module")
async def test_configuration_from_client_and_pyproject(client: LanguageClient) -> None:
    uri = await _open(client, "configured.py", TRAIN)
    assert "TL101" in _by_code(await _diagnostics(client, uri))
    client.set_configuration({**PREVIEW, "select": ["TL602"], "unsafeFixes": True}, section="torchlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert set(_by_code(await _diagnostics(client, uri))) == {"TL602"}
    client.set_configuration(PREVIEW, section="torchlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert "TL101" in _by_code(await _diagnostics(client, uri))
    (watch,) = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]  # type: ignore[attr-defined]
    assert [w["globPattern"] for w in watch.register_options["watchers"]] == ["**/.torchlint.toml", "**/torchlint.toml", "**/pyproject.toml"]
    pyproject = client.root / "pyproject.toml"  # type: ignore[attr-defined]
    pyproject.write_text('[tool.torchlint]\nignore = ["TL101"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(pyproject.as_uri(), types.FileChangeType.Created)])
    )
    found = _by_code(await _diagnostics(client, uri))
    pyproject.unlink()
    assert "TL101" not in found and "TL602" in found


@pytest.mark.asyncio(loop_scope="module")
async def test_extend_select_and_configuration_from_the_client(client: LanguageClient, tmp_path: Path) -> None:
    uri = await _open(client, "extended.py", TRAIN)
    await _diagnostics(client, uri)
    client.set_configuration({**PREVIEW, "select": ["TL602"], "extendSelect": ["TL101"]}, section="torchlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert set(_by_code(await _diagnostics(client, uri))) == {"TL101", "TL602"}
    shared = tmp_path / "team.toml"
    shared.write_text('ignore = ["TL101"]\n')
    client.set_configuration({**PREVIEW, "configuration": str(shared)}, section="torchlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    found = _by_code(await _diagnostics(client, uri))
    assert "TL101" not in found and "TL602" in found
    shared.write_text('ignore = ["TL602"]\n')  # saved in the editor: every open file is checked again
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(shared.as_uri())))
    found = _by_code(await _diagnostics(client, uri))
    client.set_configuration(PREVIEW, section="torchlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert "TL101" in found and "TL602" not in found
    assert "TL101" in _by_code(await _diagnostics(client, uri))


@pytest.mark.asyncio(loop_scope="module")
async def test_unknown_settings_are_named_once_each(tmp_path: Path) -> None:
    other = await SERVER.start()
    options = {"settings": {**PREVIEW, "extendSelct": ["TL1"]}}
    await other.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri(), initialization_options=options)
    )
    settings = {"torchlint": {"extendSelct": ["TL1"], "interpreter": "python3", "unsafe_fixes": True}}
    other.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    await other.shutdown_session()  # answered after every message the server sent before it
    await other.stop()
    warnings = [m.message for m in other.messages if m.type == types.MessageType.Warning]
    known = "(the server reads select, extendSelect, ignore, preview, unsafeFixes, configuration)"
    assert warnings == [f"torchlint: unknown setting `extendSelct` ignored {known}", f"torchlint: unknown setting `interpreter` ignored {known}"]


@pytest.mark.asyncio(loop_scope="module")
async def test_shutdown_and_exit() -> None:
    client = await SERVER.start()
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    await client.shutdown_session()
    assert client._server is not None and client._server.returncode == 0
    await client.stop()


def test_check_and_help_do_not_import_the_server() -> None:
    probe = (
        "import sys\nfrom torchlint.cli import main\n"
        "for args in (['--help'], ['check', '--no-cache', 'examples/train.py']):\n"
        "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'torchlint.server')))\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_server_without_the_extra_says_what_to_install() -> None:
    probe = "import sys\nsys.modules['pygls'] = None\nfrom torchlint.cli import main\nmain(['server'])\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == "torchlint: error: `torchlint server` needs the server extra: pip install 'torchlint[server] @ git+https://github.com/torchlint/torchlint@main'\n"


def test_a_malformed_message_is_reported_in_one_line() -> None:
    garbage = b"Content-Length: 5\r\n\r\n{bad}"
    result = subprocess.run([sys.executable, "-m", "torchlint", "server"], input=garbage, capture_output=True, timeout=60)
    assert result.returncode == 0 and b"window/showMessage" in result.stdout
    assert b"Traceback" not in result.stderr and result.stderr.decode().startswith("torchlint server: error: ")


def test_garbage_of_a_run_is_collected_after_its_diagnostics_are_published(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    text = "import torch\nx = torch.ones(2).cuda()\nfor step in range(3):\n    print(x.item())\n"
    path.write_text(text)
    server = TorchlintServer()
    server.snapshot = lambda key: Snapshot(path, (Part(key, text, 1),))  # type: ignore[method-assign]
    server.setup = lambda found: setup_for(found, EditorSettings())  # type: ignore[method-assign]
    published: List[bool] = []
    server.publish = lambda snapshot, results, docs_url="": published.append(gc.isenabled())  # type: ignore[method-assign]

    async def lint_and_wait() -> None:
        await server.refresh(path.as_uri())
        await server.off_loop(lambda: None)  # after the collection queued behind the run

    asyncio.run(lint_and_wait())
    assert published == [False]  # the collector still paused while the diagnostics went out
    assert gc.isenabled()


def test_a_run_stops_when_its_text_changes_while_it_runs(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    text = "import torch\nx = torch.ones(2).cuda()\nfor step in range(3):\n    print(x.item())\n"
    path.write_text(text)
    server = TorchlintServer()
    snapshot = Snapshot(path, (Part(path.as_uri(), text, 1),))
    setup = setup_for(path, EditorSettings())
    key = path.as_uri()
    server.generation = _ChangedAtLookUp({key: 1}, key, at=3)  # type: ignore[assignment]
    assert server._lint_job(key, 1, snapshot, setup) is None  # changed at the second statement
    assert server.generation.look_ups == 3  # before the run, then at each top-level statement
    server.generation = _ChangedAtLookUp({key: 1}, key, at=100)  # type: ignore[assignment]
    assert server._lint_job(key, 1, snapshot, setup)  # not changed: findings
    gc.enable()


class _ChangedAtLookUp(dict):  # type: ignore[type-arg]
    """A generation table in which `key` changes at the `at`-th look-up (the user types)."""

    def __init__(self, table: Dict[str, int], key: str, at: int) -> None:
        super().__init__(table)
        self.key, self.at, self.look_ups = key, at, 0

    def get(self, key: str, default: Any = None) -> Any:
        self.look_ups += 1
        if self.look_ups == self.at:
            self[self.key] += 1
        return super().get(key, default)
