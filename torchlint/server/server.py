"""`torchlint server`: diagnostics, fixes, `# noqa` and rule documentation over LSP (stdio).

Linting runs on one worker thread, off the event loop that reads the client's messages.
Each open file (or notebook) is linted on open and save, and `DEBOUNCE_S` after the last
change; a run whose text was changed again before it started is skipped, one whose text
changes while it runs stops at its next top-level statement, and results for a text that
changed while they were computed are dropped. An edit re-parses only the top-level
statements it touched (`engine.reparse`). Code actions and hovers reuse the
findings published for the current text, and lint only when those are out of date.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.uris import to_fs_path, urlparse

from torchlint import __version__
from torchlint.config import CONFIG_FILES, ConfigError
from torchlint.engine.add_noqa import add_noqa
from torchlint.engine.findings import Finding
from torchlint.engine.linter import PARSE_ERROR
from torchlint.engine.rule import Rule
from torchlint.engine.walker import Stale
from torchlint.server import convert
from torchlint.server.documents import Caches, Part, Results, Snapshot, fix_all, lint
from torchlint.server.rule_docs import RulePages, hover_text
from torchlint.server.settings import EditorSettings, FileSetup, setup_for, unknown_settings_message

# Typing pauses shorter than this do not start a lint run. Short: a run that a keystroke makes
# stale stops within a statement, so the pause only saves the starts of runs in fast bursts.
DEBOUNCE_S = 0.02
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.torchlint"
SHOW_DOCUMENTATION = "torchlint.showDocumentation"
SECTION = "torchlint"
PYTHON_SUFFIXES = (".py", ".pyi")

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Published:
    """The findings last published for one document, and the text and version they are for."""

    part: Part
    findings: Tuple[Finding, ...]
    diagnostics: Tuple[types.Diagnostic, ...]


class TorchlintServer(LanguageServer):
    def __init__(self) -> None:
        cells = types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")], notebook="*")
        super().__init__(
            "torchlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(notebook_selector=[cells], save=True),
        )
        self.editor = EditorSettings()
        self.pages = RulePages()
        self.caches = Caches()
        self.linter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="torchlint-lint")
        self.published: Dict[str, Published] = {}
        self.pending: Dict[str, asyncio.Task[None]] = {}
        # Bumped on every change of a unit (a file or a notebook); a run for an older
        # generation is stale.
        self.generation: Dict[str, int] = {}
        self.shown_errors: set[str] = set()
        self.warned_keys: set[str] = set()

    # Units: what one lint run checks, keyed by the file's or the notebook's URI.

    def unit_of(self, uri: str) -> Optional[str]:
        """The unit a document belongs to: its notebook, or itself if it is a Python file."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            return notebook.uri
        document = self.text_document(uri)
        if document is None or not (document.language_id == "python" or document.path.endswith(PYTHON_SUFFIXES)):
            return None
        return uri

    def units(self) -> List[str]:
        notebooks = list(self.workspace.notebook_documents)
        return notebooks + [document.uri for document in self.workspace.text_documents.values() if self.unit_of(document.uri) == document.uri]

    def text_document(self, uri: str) -> Optional[TextDocument]:
        """The open document `uri` names, however the client quotes it: pygls keeps documents by
        their unquoted URI (`a+b.py` for the `a%2Bb.py` of Python's `Path.as_uri`)."""
        return self.workspace.text_documents.get(unquote(uri))

    def snapshot(self, key: str) -> Optional[Snapshot]:
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            parts = []
            for cell in notebook.cells:
                document = self.workspace.get_text_document(cell.document)
                parts.append(Part(cell.document, document.source, document.version, cell.kind == types.NotebookCellKind.Code))
            return Snapshot(_path(key), tuple(parts), notebook=True)
        document = self.text_document(key)
        if document is None:
            return None
        return Snapshot(_path(key), (Part(key, document.source, document.version),))

    # Linting and publishing.

    def schedule(self, key: str, delay: float = 0.0) -> None:
        """Lint a unit after `delay` seconds, replacing a run scheduled before."""
        self.generation[key] = self.generation.get(key, 0) + 1
        previous = self.pending.pop(key, None)
        if previous is not None:
            previous.cancel()
        self.pending[key] = asyncio.ensure_future(self._lint_later(key, delay, self.generation[key]))

    def schedule_all(self, delay: float = 0.0) -> None:
        for key in self.units():
            self.schedule(key, delay)

    async def _lint_later(self, key: str, delay: float, generation: int) -> None:
        await asyncio.sleep(delay)
        await self.refresh(key, generation)

    async def refresh(self, key: str, generation: Optional[int] = None) -> None:
        """Lint a unit now and publish the result; with a `generation`, only if it is current."""
        snapshot = self.snapshot(key)
        if snapshot is None:
            return
        setup = self.setup(snapshot.path)
        if setup is None or setup.excluded:
            self.publish(snapshot, {part.uri: () for part in snapshot.parts if part.code})
            return
        try:
            try:
                results = await self.off_loop(self._lint_job, key, generation, snapshot, setup)
            except Exception as error:  # a bug must cost one run, never the server
                log.exception("linting %s failed", snapshot.path)
                self.show_error(f"torchlint: internal error on {snapshot.path}: {type(error).__name__}: {error} (please report this)")
                return
            if results is not None and (generation is None or generation == self.generation.get(key)):
                self.publish(snapshot, results, setup.docs_url)
        finally:
            self.linter.submit(_collect_garbage)  # once the diagnostics are out (see `_lint_job`)

    async def off_loop(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function` on the lint thread, so that the event loop keeps reading messages."""
        return await asyncio.get_running_loop().run_in_executor(self.linter, function, *args)

    def _lint_job(self, key: str, generation: Optional[int], snapshot: Snapshot, setup: FileSetup) -> Optional[Results]:
        """Skips a run that a newer change made stale before the lint thread got to it, and
        stops one that a change makes stale while it runs (at its next top-level statement)."""

        def stale() -> bool:
            return generation is not None and generation != self.generation.get(key)

        if stale():
            return None
        # The cycle collector stays paused until the diagnostics are published: collecting what
        # the run allocated costs about a twentieth of an edit, which need not delay them.
        gc.disable()
        try:
            return lint(snapshot, setup, self.caches, stale)
        except Stale:
            return None

    def setup(self, path: Path) -> Optional[FileSetup]:
        """The file's setup, or None after telling the user (once) what is wrong with the configuration."""
        try:
            return setup_for(path, self.editor)
        except ConfigError as error:
            self.show_error(f"torchlint: {error}")
            return None

    def show_error(self, message: str) -> None:
        if message not in self.shown_errors:
            self.shown_errors.add(message)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))

    def publish(self, snapshot: Snapshot, results: Results, docs_url: str = "") -> None:
        """Publish each part's findings; `docs_url` (with `{code}`) links them to the rule pages."""
        for part in snapshot.parts:
            if part.uri not in results:
                if part.uri in self.published:  # a code cell that became markdown
                    self.forget([part.uri])
                continue
            positions = convert.Positions(part.text, self.workspace.position_codec)
            findings = results[part.uri]
            diagnostics = tuple(convert.diagnostic(f, positions, docs_url.format(code=f.code)) for f in findings)
            self.published[part.uri] = Published(part, findings, diagnostics)
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=part.uri, diagnostics=list(diagnostics), version=part.version)
            )

    def forget(self, uris: Sequence[str]) -> None:
        for uri in uris:
            self.published.pop(uri, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def current(self, uri: str) -> Optional[Published]:
        """The findings of a document's current text, linting it if those published are out of date."""
        key = self.unit_of(uri)
        snapshot = self.snapshot(key) if key else None
        if key is None or snapshot is None:
            return None
        part = next((p for p in snapshot.parts if p.uri == uri), None)
        published = self.published.get(uri)
        if part is not None and (published is None or published.part.text != part.text):
            await self.refresh(key)
            published = self.published.get(uri)
        return published if published is not None and part is not None and published.part.text == part.text else None

    # Settings.

    def use_settings(self, raw: Any) -> None:
        root = self.workspace.root_path
        try:
            self.editor = EditorSettings.parse(raw, Path(root) if root else None)
        except ConfigError as error:
            self.show_error(f"torchlint: {error}")
            self.editor = EditorSettings()
        self.shown_errors.clear()
        self.warn_unknown(self.editor.unknown)

    def warn_unknown(self, keys: Sequence[str]) -> None:
        """Say once per key, in the editor and its log, that a setting is not one the server reads."""
        new = [key for key in keys if key not in self.warned_keys]
        if not new:
            return
        self.warned_keys.update(new)
        message = unknown_settings_message(new)
        log.warning("%s", message)
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    async def pull_settings(self) -> None:
        """Ask the client for the `torchlint` section, if it answers such requests."""
        workspace = self.client_capabilities.workspace
        if workspace is None or not workspace.configuration:
            return
        answer = await self.workspace_configuration_async(types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
        if answer and answer[0] is not None:
            self.use_settings(answer[0])

    def versioned_edit(self, changes: Dict[str, List[types.TextEdit]], versions: Dict[str, Optional[int]]) -> types.WorkspaceEdit:
        """An edit the client applies only to the versions it was computed for, where it can tell."""
        workspace = self.client_capabilities.workspace
        if workspace is not None and workspace.workspace_edit is not None and workspace.workspace_edit.document_changes:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=versions.get(uri)), edits=edits
                    )
                    for uri, edits in changes.items()
                ]
            )
        return types.WorkspaceEdit(changes=changes)

    async def fix_all_edit(self, key: str) -> Optional[types.WorkspaceEdit]:
        """The edit that applies every fix `--fix` would (with `unsafe-fixes`, unsafe ones too)."""
        snapshot = self.snapshot(key)
        setup = self.setup(snapshot.path) if snapshot else None
        if snapshot is None or setup is None:
            return None
        fixed = await self.off_loop(fix_all, snapshot, setup)
        parts = {part.uri: part for part in snapshot.parts}
        changes = {
            uri: convert.text_changes(parts[uri].text, text, convert.Positions(parts[uri].text, self.workspace.position_codec))
            for uri, text in fixed.items()
        }
        return self.versioned_edit(changes, {uri: parts[uri].version for uri in changes})


def _collect_garbage() -> None:
    """Resume the cycle collector a lint run paused, and collect what the run left behind."""
    gc.enable()
    gc.collect(0)


def _path(uri: str) -> Path:
    """The file a URI names; for an unsaved buffer, a path in the current directory."""
    path = to_fs_path(uri) or urlparse(uri)[2]
    return Path(path) if Path(path).is_absolute() else Path.cwd() / Path(path).name


def _wanted(only: Optional[Sequence[str]], kind: str) -> bool:
    """Whether the client asked for actions of `kind` (no `only`: every kind)."""
    return not only or any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


server = TorchlintServer()


# Settings and configuration files.


@server.feature(types.INITIALIZE)
def initialize(ls: TorchlintServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    if isinstance(options, dict):
        ls.use_settings(options.get("settings", options))


@server.feature(types.INITIALIZED)
async def initialized(ls: TorchlintServer, params: types.InitializedParams) -> None:
    workspace = ls.client_capabilities.workspace
    watch = workspace.did_change_watched_files if workspace else None
    if watch is not None and watch.dynamic_registration:
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
        registration = types.Registration(
            id="torchlint-config",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
        except Exception as error:  # the client claimed support but refused: saves still reload
            log.warning("the client did not watch %s: %s", ", ".join(CONFIG_FILES), error)
    await ls.pull_settings()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: TorchlintServer, params: types.DidChangeConfigurationParams) -> None:
    if isinstance(params.settings, dict) and SECTION in params.settings:
        ls.use_settings(params.settings[SECTION])
    else:
        await ls.pull_settings()
    ls.schedule_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: TorchlintServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.shown_errors.clear()
    ls.schedule_all()


# Documents.


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TorchlintServer, params: types.DidOpenTextDocumentParams) -> None:
    if ls.unit_of(params.text_document.uri) is not None:
        ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TorchlintServer, params: types.DidChangeTextDocumentParams) -> None:
    if ls.unit_of(params.text_document.uri) is not None:
        ls.schedule(params.text_document.uri, DEBOUNCE_S)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: TorchlintServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    if _path(uri).name in CONFIG_FILES or _path(uri) == ls.editor.configuration:
        ls.shown_errors.clear()
        ls.schedule_all()
    elif ls.unit_of(uri) is not None:
        # Other files may read facts from this one (project-wide settings it enables).
        ls.schedule_all(DEBOUNCE_S)
        ls.schedule(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TorchlintServer, params: types.DidCloseTextDocumentParams) -> None:
    task = ls.pending.pop(params.text_document.uri, None)
    if task is not None:
        task.cancel()
    ls.forget([params.text_document.uri])


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: TorchlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: TorchlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    structure = params.change.cells.structure if params.change.cells else None
    if structure is not None:
        ls.forget([cell.uri for cell in structure.did_close or []])
    ls.schedule(params.notebook_document.uri, DEBOUNCE_S)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: TorchlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: TorchlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    task = ls.pending.pop(params.notebook_document.uri, None)
    if task is not None:
        task.cancel()
    ls.forget([cell.uri for cell in params.cell_text_documents])


# Code actions, hover and the documentation command.


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True),
)
async def code_action(ls: TorchlintServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
    uri = params.text_document.uri
    published = await ls.current(uri)
    if published is None:
        return None
    only = params.context.only
    actions: List[types.CodeAction] = []
    if _wanted(only, types.CodeActionKind.QuickFix):
        for finding, diagnostic in zip(published.findings, published.diagnostics):
            if convert.overlaps(diagnostic.range, params.range):
                actions += _quick_fixes(ls, published, finding, diagnostic)
    key = ls.unit_of(uri)
    if key is not None and _wanted(only, FIX_ALL) and _has_fixes(ls, key):
        action = types.CodeAction(title="Fix all auto-fixable torchlint findings", kind=FIX_ALL, data={"unit": key})
        if not _resolves_edits(ls):
            action.edit = await ls.fix_all_edit(key)
        actions.append(action)
    return actions


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: TorchlintServer, action: types.CodeAction) -> types.CodeAction:
    if action.kind == FIX_ALL and isinstance(action.data, dict) and action.edit is None:
        action.edit = await ls.fix_all_edit(action.data["unit"])
    return action


def _quick_fixes(ls: TorchlintServer, published: Published, finding: Finding, diagnostic: types.Diagnostic) -> List[types.CodeAction]:
    """Apply this fix, suppress it with `# noqa` on its line, show the rule's documentation."""
    part = published.part
    positions = convert.Positions(part.text, ls.workspace.position_codec)
    actions: List[types.CodeAction] = []
    if finding.fix is not None:
        edits = [positions.text_edit(edit) for edit in finding.fix.edits]
        actions.append(
            types.CodeAction(
                convert.fix_label(finding),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=ls.versioned_edit({part.uri: edits}, {part.uri: part.version}),
                is_preferred=finding.fixable(unsafe=False),
            )
        )
    if finding.code != PARSE_ERROR:
        suppressed = add_noqa(part.text, [finding])
        if suppressed != part.text:
            edits = convert.text_changes(part.text, suppressed, positions)
            actions.append(
                types.CodeAction(
                    f"Add `# noqa: {finding.code}` on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=ls.versioned_edit({part.uri: edits}, {part.uri: part.version}),
                )
            )
    actions.append(
        types.CodeAction(
            f"Show documentation for {finding.code} ({finding.name})",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            command=types.Command(title=f"Show {finding.code} documentation", command=SHOW_DOCUMENTATION, arguments=[finding.code]),
        )
    )
    return actions


def _has_fixes(ls: TorchlintServer, key: str) -> bool:
    snapshot = ls.snapshot(key)
    parts = snapshot.parts if snapshot else ()
    return any(f.fixable(ls.editor.unsafe_fixes) for part in parts if part.uri in ls.published for f in ls.published[part.uri].findings)


def _resolves_edits(ls: TorchlintServer) -> bool:
    document = ls.client_capabilities.text_document
    support = document.code_action.resolve_support if document and document.code_action else None
    return support is not None and "edit" in support.properties


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: TorchlintServer, params: types.HoverParams) -> Optional[types.Hover]:
    published = await ls.current(params.text_document.uri)
    if published is None:
        return None
    point = types.Range(params.position, params.position)
    texts = [
        hover_text(Rule._registry[f.code], d.code_description.href if d.code_description else ls.pages.uri(f.code))
        for f, d in zip(published.findings, published.diagnostics)
        if convert.overlaps(d.range, point) and f.code in Rule._registry
    ]
    if not texts:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(texts)))


@server.command(SHOW_DOCUMENTATION)
async def show_documentation(ls: TorchlintServer, code: str) -> None:
    rule = Rule._registry.get(code)
    if rule is None:
        return
    window = ls.client_capabilities.window
    if window is not None and window.show_document is not None and window.show_document.support:
        await ls.window_show_document_async(types.ShowDocumentParams(uri=ls.pages.uri(code), take_focus=True))
    else:
        message = f"{rule.code} {rule.name}: {rule.summary}. Run `torchlint rule {rule.code}` for the full page."
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))


class _OneLine(logging.Formatter):
    """Log records as single lines on standard error (the editor's log): a malformed message
    from the client is reported, not shown as a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info is not None and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message += f": {type(error).__name__}: {error}"
        return f"torchlint server: {record.levelname.lower()}: {message}".replace("\n", " ")


def run() -> None:
    """Serve over standard input and output until the client says exit."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    server.start_io()
