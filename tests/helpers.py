"""Ground truth for paging tests: a plain boto3 loop over LastEvaluatedKey."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def responses(
    call: Any,
    *,
    more: str = "LastEvaluatedKey",
    start: str = "ExclusiveStartKey",
    pages: int | None = None,
    **params: Any,
) -> list[dict]:
    """Each response of a plain loop: ``call`` again from ``more`` (LastEvaluatedKey, or
    NextToken for PartiQL) until it is absent, or for ``pages`` responses at most."""
    found: list[dict] = []
    while pages is None or len(found) < pages:
        response = call(**params)
        found.append(response)
        if not response.get(more):
            break
        params = {**params, start: response[more]}
    return found


def query_pages(client: Any, **params: Any) -> list[dict]:
    """Every response of a Query (or Scan, without KeyConditionExpression), in order."""
    operation = client.query if "KeyConditionExpression" in params else client.scan
    return responses(operation, **params)


def drain(client: Any, **params: Any) -> list[dict]:
    """Every item a Query (or Scan, without KeyConditionExpression) returns, in order."""
    return [item for response in query_pages(client, **params) for item in response["Items"]]


def walk(pager: Any, limit: int = 100_000) -> list[Any]:
    """Every page from here to the end, following the pager's own next."""
    pages = []
    while pager.can_advance and len(pages) < limit:
        pages.append(pager.next())
    return pages


def items_of(pages: list[Any]) -> list[dict]:
    return [item for page in pages for item in page.items]


def rare_spec(schema: Any, **options: Any) -> Any:
    """The demo's big customer filtered on the rare status: most of what is read is discarded."""
    from dynotui.dynamodb.spec import from_key
    from dynotui.local import demo

    return from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        **options,
    )


def page_lines(stdout: str) -> list[dict]:
    """The page objects ``dynotui pages`` printed, without its last line, the summary
    (checked to be there, last, and the only object without a ``page`` key)."""
    import json

    parsed = [json.loads(line) for line in stdout.splitlines()]
    assert parsed and set(parsed[-1]) == {"summary"}, "the last line is the summary"
    assert all("page" in line for line in parsed[:-1])
    return parsed[:-1]


def summary_line(stdout: str) -> dict:
    """The ``summary`` object of ``dynotui pages`` output."""
    import json

    return json.loads(stdout.splitlines()[-1])["summary"]


def run_in_process(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    input: str = "",
    text: bool = True,
) -> subprocess.CompletedProcess[Any]:
    """``python -m dynotui ARGS`` run by this process's ``cli.main``, returned as
    ``subprocess.run(..., capture_output=True, text=text)`` returns the real one: the
    exit code, stdout and stderr (``text``: UTF-8 with universal newlines, else bytes),
    with ``env`` in force as the whole environment and ``input`` as stdin.

    For what parsing and output show, without a second of interpreter start-up and
    imports per call; what only a process shows (signals, terminals, an inherited
    environment, a JVM's lifetime, a closed pipe) keeps a real one.
    """
    from dynotui.cli.main import main

    out, err = io.BytesIO(), io.BytesIO()
    stdin = io.TextIOWrapper(io.BytesIO(input.encode()), encoding="utf-8")
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace")
    streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    try:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors, as the process would exit
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        if env is not None:
            os.environ.clear()
            os.environ.update(saved_env)
    for wrapper in (stdout, stderr):
        wrapper.flush()
        wrapper.detach()  # the bytes stay readable: a collected wrapper closes its buffer

    def read(data: bytes) -> Any:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") if text else data

    return subprocess.CompletedProcess(
        ["dynotui", *args], code, read(out.getvalue()), read(err.getvalue())
    )


def until(condition: Callable[[], bool], timeout: float = 60.0, every: float = 0.01) -> bool:
    """Whether ``condition`` came true within ``timeout`` seconds (asked every ``every``):
    an outcome to assert, with a deadline only a hung run reaches."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return condition()
