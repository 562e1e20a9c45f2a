"""CSV for spreadsheets: cells a spreadsheet would run as formulas, written as text.

Excel, LibreOffice and Google Sheets treat a cell that starts with ``=``, ``@``,
``+`` or ``-`` as a formula (and a leading tab or carriage return hides one), so a
DAG id such as ``=HYPERLINK(...)`` in a run table becomes live when the file is
opened. ``--csv-for-spreadsheets`` prefixes such cells with ``'``, which every
spreadsheet reads as "text follows". Numbers (``-5``, ``+1.5``) and durations
(``-P1D``) are left as they are; the default CSV is never changed, so scripts
read exact values.
"""

from __future__ import annotations

import csv
import io

__all__ = ["for_spreadsheets", "spreadsheet_cell"]


def spreadsheet_cell(cell: str) -> str:
    """``cell``, prefixed with ``'`` when a spreadsheet would read it as a formula."""
    if not cell:
        return cell
    first = cell[0]
    if first in "=@\t\r":
        return "'" + cell
    if first in "+-" and not (len(cell) > 1 and (cell[1].isdigit() or cell[1] in "P.")):
        return "'" + cell
    return cell


def for_spreadsheets(text: str) -> str:
    """CSV ``text`` with every formula-like cell made text (see the module docstring)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text)):
        writer.writerow([spreadsheet_cell(cell) for cell in row])
    return out.getvalue()
