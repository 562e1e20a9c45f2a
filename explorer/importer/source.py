"""A DAG file's bytes as Python reads them: a UTF-8 BOM and a PEP 263 coding line honoured.

Airflow imports DAG files with Python's own import machinery, which reads
``# -*- coding: latin-1 -*-`` in the first two lines and a UTF-8 byte order mark
(``tokenize.detect_encoding``); a file Python reads is a file the import reads.
"""

from __future__ import annotations

import io
import tokenize

__all__ = ["SourceError", "decode_source"]


class SourceError(ValueError):
    """The bytes are not text in the encoding the file declares (Python refuses it too)."""


def decode_source(content: bytes) -> str:
    """The text of ``content``, decoded as Python would decode a module's source."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    except SyntaxError as exc:
        raise SourceError(
            f"not UTF-8 text, and no PEP 263 coding line names another encoding ({exc.msg}): "
            "Python refuses the file too"
        ) from None
    try:
        text = content.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise SourceError(f"not {name} text: {exc}") from None
    return text.removeprefix("\ufeff")
