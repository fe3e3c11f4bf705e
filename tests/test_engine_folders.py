"""DuckDB's spill folders (issue 40, item 23): the suite left hundreds of empty
``dynotui-duckdb-*`` folders in the temporary folder. Whatever stops an engine removes
its folder (closing it, a refused export, collection, the process's exit), and one left
by a process that was killed is removed by the next engine."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from export_layout import write_export

from dynotui.core.errors import InputError
from dynotui.table_export.engine import Engine
from dynotui.table_export.reading import OpenExport

ITEMS = [{"pk": {"S": "a"}, "sk": {"N": str(n)}} for n in range(3)]


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def spill_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("dynotui-duckdb-"))


def test_closing_or_dropping_an_engine_removes_its_folder(temporary: Path) -> None:
    with Engine():
        assert len(spill_folders(temporary)) == 1
    assert spill_folders(temporary) == []
    engine = Engine()
    assert len(spill_folders(temporary)) == 1
    del engine
    gc.collect()
    assert spill_folders(temporary) == []


def test_a_refused_export_leaves_no_folder(temporary: Path, tmp_path: Path) -> None:
    """The engine was made before the manifests were read, and never closed when they
    were refused: one folder per refusal."""
    folder = write_export(tmp_path / "export", ITEMS, table="t")
    (folder / "manifest-files.json").write_text("not json\n")
    for _ in range(3):
        with pytest.raises(InputError):
            OpenExport(str(folder))
    assert spill_folders(temporary) == []
    with OpenExport(str(write_export(tmp_path / "good", ITEMS, table="t"))) as opened:
        assert len(spill_folders(temporary)) == 1 and opened.export.item_count == 3
    assert spill_folders(temporary) == []


def engine_process(temporary: Path, wait: bool) -> subprocess.Popen[str]:
    code = (
        "import sys, time\n"
        "from dynotui.table_export.engine import Engine\n"
        "e = Engine()\n"
        "print('ready', flush=True)\n"
        f"time.sleep({600 if wait else 0})\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "TMPDIR": str(temporary)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def test_a_killed_engines_folder_is_cleaned_and_a_live_ones_kept(temporary: Path) -> None:
    from dynotui.table_export.engine import clean_stale_folders

    killed = engine_process(temporary, wait=True)
    killed.send_signal(signal.SIGKILL)  # no exit handler runs: its folder stays
    killed.wait(30)
    live = engine_process(temporary, wait=True)
    try:
        (left, in_use) = sorted(
            spill_folders(temporary), key=lambda n: (temporary / n).stat().st_mtime
        )
        # Just made, it may not be locked yet: a minute's grace.
        assert clean_stale_folders(str(temporary)) == []
        later = time.time() + 120
        assert clean_stale_folders(str(temporary), now=later) == [str(temporary / left)]
        assert spill_folders(temporary) == [in_use], "the live engine's folder is kept"
    finally:
        live.send_signal(signal.SIGTERM)  # Python's default: no exit handler either
        live.wait(30)
    assert clean_stale_folders(str(temporary), now=time.time() + 120) == [str(temporary / in_use)]
    legacy = temporary / "dynotui-duckdb-abcd1234"  # an older dynotui's, empty
    legacy.mkdir()
    assert clean_stale_folders(str(temporary), now=time.time() + 60) == []
    assert clean_stale_folders(str(temporary), now=time.time() + 7200) == [str(legacy)]
