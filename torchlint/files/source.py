"""Reading source files: encodings (PEP 263 cookies, BOM), newline style and binary detection."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import List


_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def physical_lines(text: str, keepends: bool = False) -> List[str]:
    """Lines as Python counts them: split on CRLF, CR and LF only (unlike `str.splitlines`,
    which also splits on form feeds and Unicode separators)."""
    lines = _PHYSICAL_LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


class UndecodableSource(Exception):
    """The bytes are not Python source text; the message says why in one line."""


@dataclass(frozen=True)
class SourceText:
    """Decoded source plus what is needed to write it back byte-identically."""

    text: str
    encoding: str  # codec name as Python reports it, e.g. "utf-8", "utf-8-sig", "latin-1"

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def decode_source(data: bytes) -> SourceText:
    """Decode file bytes as Python would: BOM, then a coding cookie, else UTF-8."""
    if b"\x00" in data[:8192]:
        raise UndecodableSource("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise UndecodableSource(str(error)) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise UndecodableSource(
            f"not valid {encoding} (byte 0x{data[error.start]:02x} on line {line}); "
            "declare the encoding with a '# -*- coding: ... -*-' line"
        ) from None
    return SourceText(text, encoding)
