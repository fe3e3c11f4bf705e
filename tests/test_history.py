"""History that lasts: the store on its own (pure, a temporary folder), and reopening a
DynamoDB query and a PostgreSQL read where they were left (real servers)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dynotui.core.errors import InputError
from dynotui.core.history import (
    HistoryEntry,
    HistoryError,
    HistoryQuery,
    HistoryStore,
    cost_record,
    cost_words,
    history_path,
    history_settings,
)
from dynotui.core.pager import Pager
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.history_entry import (
    connection_record,
    form_from_record,
    form_record,
    query_entry,
    reopen,
    reopened_pager,
    spec_from_record,
    spec_record,
    statement_entry,
)
from dynotui.dynamodb.partiql import statement_from
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import from_expressions
from dynotui.local import demo


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 1
        return self.now


def query(n: int = 0, **extra: Any) -> HistoryQuery:
    return HistoryQuery(
        "test-db",
        {"endpoint_url": "http://127.0.0.1:8000", "region": "eu-west-1"},
        {"table": f"t{n}", **extra},
        f"t{n} · Query",
    )


def store(tmp_path: Path, **options: Any) -> HistoryStore:
    return HistoryStore(tmp_path / "data" / "dynotui" / "history.json", clock=Clock(), **options)


def test_an_entry_written_reads_back_equal(tmp_path: Path) -> None:
    history = store(tmp_path)
    entry_id = history.record_open(query(1))
    assert entry_id is not None
    assert history.viewed(entry_id, page=3, boundary={"pk": {"S": "a"}}, cost={"headline": 1.5})
    again = HistoryStore(history.path)  # another run
    (entry,) = again.entries()
    assert entry == history.get(entry_id)
    assert entry.page == 3 and entry.boundary == {"pk": {"S": "a"}}
    assert entry.query == {"table": "t1"} and entry.label == "t1 · Query"
    assert entry.viewed_at > entry.opened_at
    assert HistoryEntry(**{**entry.as_json()}) == entry


def test_the_file_is_owner_only_and_written_whole(tmp_path: Path) -> None:
    history = store(tmp_path)
    history.record_open(query())
    assert stat.S_IMODE(history.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(history.path.parent.stat().st_mode) == 0o700
    leftovers = [p.name for p in history.path.parent.iterdir() if p.name != "history.json"]
    assert leftovers == [".history.json.lock"], "no temporary file is left behind"


def test_disabled_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert history_path() == tmp_path / "xdg" / "dynotui" / "history.json"
    for history in (
        HistoryStore.from_settings(enabled=False, settings={}),  # --no-history
        HistoryStore.from_settings(settings={"history": False}),  # history = false
        HistoryStore.from_settings(settings={"history": {"enabled": False}}),
    ):
        assert not history.enabled
        assert history.record_open(query()) is None
        assert history.viewed("x", page=1, boundary=None, cost={}) is False
        assert history.entries() == [] and history.last() is None
    assert not (tmp_path / "xdg").exists()
    HistoryStore.from_settings(settings={}).record_open(query())
    assert [p.name for p in (tmp_path / "xdg" / "dynotui").iterdir() if p.suffix == ".json"] == [
        "history.json"
    ]


def test_settings_are_checked_by_name() -> None:
    assert history_settings({"history": {"max_entries": 7}}).max_entries == 7
    for bad, words in [
        ({"history": "off"}, "true, false or a [history] table"),
        ({"history": {"enable": False}}, "no setting enable"),
        ({"history": {"enabled": "no"}}, "must be true or false"),
        ({"history": {"max_entries": 0}}, "max_entries"),
    ]:
        with pytest.raises(InputError, match=re.escape(words)):
            history_settings(bad)


def test_the_caps_hold_newest_first(tmp_path: Path) -> None:
    history = store(tmp_path, max_entries=5)
    ids = [history.record_open(query(n)) for n in range(8)]
    kept = history.entries()
    assert [e.id for e in kept] == list(reversed(ids))[:5]
    history.viewed(ids[4], page=2, boundary=None, cost={})
    assert history.last() is not None and history.last().id == ids[4]  # type: ignore[union-attr]
    small = store(tmp_path / "small", max_bytes=4096)
    padded = [small.record_open(query(n, pad="x" * 500)) for n in range(20)]
    assert small.path.stat().st_size <= 4096
    left = [e.id for e in small.entries()]
    assert left == list(reversed(padded))[: len(left)] and 3 <= len(left) < 20


def test_the_same_query_reopened_is_one_entry(tmp_path: Path) -> None:
    history = store(tmp_path)
    history.record_open(query(1))
    second = history.record_open(query(1))
    history.record_open(query(2))
    assert [e.query["table"] for e in history.entries()] == ["t2", "t1"]
    assert history.get(second) is not None


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from dynotui.core.history import HistoryQuery, HistoryStore
    history = HistoryStore(Path(sys.argv[1]), max_entries=1000, max_bytes=8_000_000)
    for n in range(int(sys.argv[3])):
        entry = history.record_open(HistoryQuery("db", {}, {"who": sys.argv[2], "n": n}, "x"))
        history.viewed(entry, page=n + 1, boundary={"n": n}, cost={})
    """
)


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), who, "40"]) for who in ("a", "b")
    ]
    assert [w.wait(300) for w in writers] == [0, 0]
    entries = HistoryStore(path).entries()
    seen = {(e.query["who"], e.query["n"], e.page) for e in entries}
    assert seen == {(who, n, n + 1) for who in "ab" for n in range(40)}
    assert sorted(p.name for p in tmp_path.iterdir()) == [".history.json.lock", "history.json"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "is not dynotui's history (not JSON)"),
        (b'{"format": "something-else", "entries": []}', "is not dynotui's history"),
        (b'{"format": "dynotui-history", "version": 9, "entries": []}', "format 9"),
        (b'{"format": "dynotui-history", "version": 1, "entries": [{"id": 1}]}', "damaged"),
        (b"\xff\xfe\x00", "not JSON"),
        (b"[" * 100_000, "not JSON"),
    ],
)
def test_a_file_that_is_not_our_history_is_refused_and_kept(
    tmp_path: Path, content: bytes, words: str
) -> None:
    history = store(tmp_path)
    history.path.parent.mkdir(parents=True)
    history.path.write_bytes(content)
    history.path.chmod(0o600)
    for attempt in (history.entries, lambda: history.record_open(query())):
        with pytest.raises(HistoryError, match="move it aside or delete it") as info:
            attempt()
        assert words in str(info.value) and str(history.path) in str(info.value)
    assert history.path.read_bytes() == content, "never overwritten"


def test_a_file_others_can_read_is_refused(tmp_path: Path) -> None:
    history = store(tmp_path)
    history.record_open(query())
    history.path.chmod(0o644)
    with pytest.raises(HistoryError, match=r"mode 0644.*chmod 600"):
        history.entries()


def test_a_symbolic_link_at_the_lock_file_is_refused_and_nothing_made_at_its_target(
    tmp_path: Path,
) -> None:
    history = store(tmp_path)
    history.path.parent.mkdir(parents=True, mode=0o700)
    target = tmp_path / "elsewhere" / "planted"
    target.parent.mkdir()
    lock = history.path.with_name(".history.json.lock")
    lock.symlink_to(target)
    with pytest.raises(HistoryError, match=r"lock file .* is a symbolic link") as info:
        history.record_open(query())
    assert str(info.value).count("\n") == 0
    assert not target.exists(), "nothing created where the link points"
    assert not history.path.exists()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722, 0o1777], ids=lambda m: f"{m:04o}")
def test_a_data_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    history = store(tmp_path)
    history.record_open(query())
    history.path.parent.chmod(mode)
    for attempt in (history.entries, history.last, lambda: history.record_open(query(2))):
        with pytest.raises(HistoryError, match=r"data folder .* can be written by others") as info:
            attempt()
        assert f"mode {mode:04o}" in str(info.value) and "chmod 700" in str(info.value)
    history.path.parent.chmod(0o700)
    assert [e.query["table"] for e in history.entries()] == ["t0"], "kept, and readable again"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_a_data_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    history = store(tmp_path)
    history.record_open(query())
    os.chown(history.path.parent, 12345, -1)
    with pytest.raises(HistoryError, match=r"belongs to another user \(uid 12345\)"):
        history.entries()


def test_a_refused_data_folder_is_one_line_and_exit_2_on_resume(tmp_path: Path) -> None:
    data = tmp_path / "data"
    HistoryStore(data / "dynotui" / "history.json").record_open(query())
    (data / "dynotui").chmod(0o777)
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "--resume"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_DATA_HOME": str(data)},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "can be written by others" in result.stderr


@pytest.mark.parametrize(
    "connection",
    [
        {"password": "hunter2"},
        {"aws_secret_access_key": "x"},
        {"AWS_SESSION_TOKEN": "x"},
        {"endpoint_url": "https://user:pw@example.com/"},
        {"nested": {"sslpassword": "x"}},
    ],
)
def test_a_connection_with_a_secret_is_never_written(tmp_path: Path, connection: dict) -> None:
    history = store(tmp_path)
    with pytest.raises(HistoryError, match="credential"):
        history.record_open(HistoryQuery("db", connection, {}, "x"))
    assert not history.path.exists()


def test_connection_records_carry_no_secrets() -> None:
    options = ConnectionOptions(
        profile="dev", region="eu-west-1", endpoint_url="https://me:secret@ddb.example:8443/x?y=1"
    )
    record = connection_record(options)
    assert record["endpoint_url"] == "https://ddb.example:8443/x"
    assert "secret" not in json.dumps(record)
    from dynotui.postgres.history_entry import connection_record as pg_connection

    kept = pg_connection("postgresql://app:s3cret@db.example:5433/shop?sslmode=require")
    assert "s3cret" not in json.dumps(kept) and "password" not in kept["conninfo"]
    assert "db.example" in kept["conninfo"] and "sslmode=require" in kept["conninfo"]
    assert pg_connection(None) == {"conninfo": ""}


def test_cost_words() -> None:
    assert cost_words({"pages_read": 4, "headline": 12.5, "unit": "RCU"}) == (
        "12.5 RCU over 4 page reads"
    )
    assert cost_words({"pages_read": 1, "headline": None}) == "cost not reported over 1 page read"


# -- DynamoDB: the query's record, and reopening it where it was left -----------------------


def acme_spec(**options: Any) -> Any:
    return from_expressions(
        demo.TABLE,
        key_condition="customer = :c",
        filter="status <> :s",
        values={":c": {"S": demo.BIG_CUSTOMER}, ":s": {"S": "CANCELLED"}},
        page_size=7,
        mode="fill",
        **options,
    )


def test_dynamodb_records_round_trip() -> None:
    spec = acme_spec(forward=False)
    again = spec_from_record(json.loads(json.dumps(spec_record(spec))))
    assert again == spec and again.typed == spec.typed and again.scope() == spec.scope()
    form = QueryForm(order="by_total", partition_value="acme", filter="total > :t", values="{}")
    assert form_from_record(json.loads(json.dumps(form_record(form)))) == form
    statement = statement_from(
        f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?', '[{"S": "c007"}]', 5
    )
    recorded = statement_entry(statement, ConnectionOptions())
    entry = HistoryEntry(
        "i",
        recorded.database,
        {**recorded.connection},
        dict(recorded.query),
        recorded.label,
        0,
        0,
    )
    assert reopen(entry).statement == statement
    tampered = {**spec_record(spec), "page_size": True}
    with pytest.raises(HistoryError, match="page_size"):
        spec_from_record(tampered)


def test_reopening_after_quitting_lands_on_the_same_items(ddb, client, demo_table, tmp_path):
    history = HistoryStore(tmp_path / "history.json")
    options = ConnectionOptions(endpoint_url=ddb.endpoint_url)
    spec = acme_spec()
    source = QuerySource(client, spec, describe_table(client, demo.TABLE))
    pager = Pager(source)
    entry_id = history.record_open(query_entry(spec, options))
    for _ in range(3):
        page = pager.next()
        history.viewed(
            entry_id,
            page=page.number,
            boundary=source.key_to_json(page.start_key),
            cost=cost_record(pager.totals),
        )
    seen = [to_wire(item) for item in page.items]
    # No item value beyond the boundary keys is in the file.
    text = history.path.read_text()
    for item in seen:
        for name in ("placed_at", "lines", "status"):
            if name in item:
                assert json.dumps(next(iter(item[name].values())))[1:-1] not in text, name

    # The next run: a new store on the same file, a new client.
    last = HistoryStore(history.path).last()
    assert last is not None and last.id == entry_id and last.page == 3
    assert "RCU" in last.cost_words() and "3 page reads" in last.cost_words()
    reopening = reopen(last)
    assert reopening.connection.endpoint_url == ddb.endpoint_url
    assert "page 3" in reopening.note
    from dynotui.dynamodb.connection import make_client

    again = reopened_pager(reopening, make_client(reopening.connection)).next()
    assert [to_wire(item) for item in again.items] == seen
    assert again.number == 3  # numbered as when it was left


def test_an_edited_boundary_is_refused_on_reopening(ddb, client, demo_table, tmp_path) -> None:
    history = HistoryStore(tmp_path / "history.json")
    entry_id = history.record_open(
        query_entry(acme_spec(), ConnectionOptions(endpoint_url=ddb.endpoint_url))
    )
    history.viewed(entry_id, page=2, boundary={"customer": {"S": "acme"}}, cost={})
    last = history.last()
    assert last is not None
    with pytest.raises(Exception, match="order_no"):
        reopened_pager(reopen(last), client)


# -- PostgreSQL -----------------------------------------------------------------------------


def test_postgres_reopening_lands_on_the_same_rows(pg_uri: str, pg: Any, tmp_path: Path) -> None:
    from dynotui.postgres import history_entry as pg_history
    from dynotui.postgres.connection import PgOptions, connect
    from dynotui.postgres.schema import describe_table as pg_describe
    from dynotui.postgres.source import PgSource
    from dynotui.postgres.sql import PgQuery

    table = pg_describe(pg, "orders")
    read = PgQuery(
        table,
        table.order("orders_customer_created").reversed(),
        where="status = $1",
        params=("SHIPPED",),
        page_size=9,
        descending=True,
    )
    source = PgSource(pg, read)
    pager = Pager(source)
    history = HistoryStore(tmp_path / "history.json")
    entry_id = history.record_open(pg_history.query_entry(read, pg_uri))
    for _ in range(4):
        page = pager.next()
        history.viewed(
            entry_id,
            page=page.number,
            boundary=source.key_to_json(page.start_key),
            cost=cost_record(pager.totals),
        )
    last = HistoryStore(history.path).last()
    assert last is not None and last.page == 4 and "buffers" in last.cost_words()
    reopening = pg_history.reopen(last)
    session = connect(PgOptions(uri=reopening.conninfo))
    try:
        again = pg_history.reopened_pager(reopening, session).next()
    finally:
        session.close()
    assert list(again.items) == list(page.items)
