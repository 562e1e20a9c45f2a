"""Saving never loses a file: read-only files are refused, links are followed, hard links
keep sharing the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer.scenario import dumps_scenario, load_scenario, save_scenario

ROOT = Path(__file__).resolve().parents[2]
ORDERS = load_scenario(ROOT / "resources" / "scenarios" / "ny_dst_orders_mart.json")


def test_a_read_only_file_is_refused_whoever_saves(tmp_path: Path) -> None:
    target = tmp_path / "locked.json"
    target.write_text("old")
    target.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        save_scenario(ORDERS, target)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["locked.json"]


def test_saving_through_a_symlink_writes_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    save_scenario(ORDERS, link)
    assert link.is_symlink()
    assert real.read_text() == dumps_scenario(ORDERS)


def test_a_hard_linked_file_stays_one_file(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_text("old")
    second = tmp_path / "second.json"
    os.link(first, second)
    save_scenario(ORDERS, first)
    assert second.read_text() == dumps_scenario(ORDERS)
    assert first.stat().st_ino == second.stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.json", "second.json"]


def test_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        save_scenario(ORDERS, tmp_path / "nowhere" / "x.json")
    assert caught.value.filename == str(tmp_path / "nowhere")
