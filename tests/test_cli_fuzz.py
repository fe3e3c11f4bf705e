"""The CLI fuzzed: every input it refuses is exit 2 and one line, never "unexpected".

Endpoints run inside a network namespace of the test's own (where unshare allows), so a
mutation that happens to spell a real host reaches nothing. JSON inputs (values,
parameters, names, start keys, foreign cursors) run against DynamoDB Local's demo table,
from hypothesis and from a corpus of what broke before: integers past Python's 4,300
digits, lone surrogates, nesting, duplicate names, NaN.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynotui.cli.main import main
from dynotui.local import demo

# Each was exit 1 "unexpected ValueError" (urllib's reading of brackets), or is a near miss
# of a loopback URL that urllib and botocore read differently.
MALFORMED_ENDPOINTS = [
    "http://[127.0.0.1]:8811",
    "http://[::1:8811",
    "http://::1]:8811",
    "http://[:::1]:8811",
    "http://[]:8811",
    "http://[::1]]:8811",
    "http://[[::1]:8811",
    "http://[::1]x:8811",
    "http://[v1.x]:8811",
    "http://[\uff11::1]:8811",
    "http://[\u3002::1]:8811",
    "http://127.0.0]18[11",
    "http://127\u30020\u30020\u30021:8811",
    "http://127\uff0e0\uff0e0\uff0e1:8811",
    "http://127\uff610\uff610\uff611:8811",
    "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:8811",
    "http://127.0.0.1%00:8811",
    "http://127.0.0.1:8811%00",
    "http://127.0.0.1\t:8811",
    "http://\t127.0.0.1:8811",
    "http://127.0.0.1:8811\x00",
    "http://127.0.0.1:88 11",
    "http://127.0.0.1:8811\r\n",
    "http://127.0.0.1\u200b:8811",
    "http://127.0.0.1\u3000:8811",
    "http://localhost\u0085:8811",
    "http://127.0.0.1:-1",
    "http://127.0.0.1:65536",
    "http://127.0.0.1:\uff18\uff18\uff11\uff11",
    "http://127.0.0.1:\u0668\u0668\u0661\u0661",
    "http://127.0.0.1:\u00b9\u00b2",
    "http://127.0.0.1:0x10",
    "http://127.0.0.1:" + "1" * 5000,
    "http://:8811",
    "http://",
    "http:",
    "http://%31%32%37.0.0.1:8811",
    "http://a..b:8811",
    "http://.:8811",
    "http://" + "a" * 300 + ":8811",
    "ftp://127.0.0.1:8811",
]

ENDPOINT_SCRIPT = textwrap.dedent(
    """
    import contextlib, io, json, os, sys
    from dynotui.cli.main import main
    cases = json.loads(sys.stdin.read())
    quick = ["--max-attempts", "1", "--connect-timeout", "1", "--read-timeout", "1"]
    failures = []
    def run(argv, env=None):
        before = dict(os.environ)
        os.environ.update(env or {})
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    code = main(argv)
                except SystemExit as exc:
                    code = exc.code
        finally:
            os.environ.clear()
            os.environ.update(before)
        return code, err.getvalue()
    for endpoint, strict in cases:
        runs = [(["tables", "--endpoint-url", endpoint, *quick], None)]
        if strict and "\\x00" not in endpoint:  # no variable can hold a NUL
            runs.append((["tables", *quick], {"AWS_ENDPOINT_URL_DYNAMODB": endpoint}))
            runs.append((["demo", "--no-tui", "--endpoint-url", endpoint, *quick], None))
        for argv, env in runs:
            code, err = run(argv, env)
            ok = err.count("\\n") == 1 and "unexpected" not in err and "Traceback" not in err
            # A mutation may spell a well-formed URL: it is then unreachable here (exit 1).
            ok = ok and (code == 2 or (not strict and code == 1 and "reach" in err))
            if not ok:
                failures.append([endpoint, argv[0], code, err[:300]])
    print(json.dumps(failures))
    """
)


def mutated_endpoints(seed: int, count: int) -> list[str]:
    """Near misses of loopback URLs: one to three characters inserted, replaced or
    dropped, from URL syntax, look-alikes (fullwidth, other digits), controls and a
    lone surrogate."""
    rng = random.Random(seed)
    bases = ["http://127.0.0.1:8811", "http://[::1]:8811", "http://localhost:8811/"]
    alphabet = list(":/[]@%.\\?#\t \x00\x7f\u3002\uff0e\uff61\u200b\u00b9\u0663\uff11-_~x")
    alphabet += [chr(rng.randrange(0x20, 0x3000)) for _ in range(40)]
    found = []
    for _ in range(count):
        chars = list(rng.choice(bases))
        for _ in range(rng.randint(1, 3)):
            where = rng.randrange(len(chars))
            roll = rng.random()
            if roll < 0.4:
                chars.insert(where, rng.choice(alphabet))
            elif roll < 0.7:
                chars[where] = rng.choice(alphabet)
            else:
                del chars[where]
        found.append("".join(chars))
    return found


def _namespace_prefix() -> list[str]:
    if shutil.which("unshare"):
        probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return ["unshare", "-n"]
    return []


def test_malformed_endpoints_exit_2_with_one_line(tmp_path: Path) -> None:
    prefix = _namespace_prefix()
    cases = [[endpoint, True] for endpoint in MALFORMED_ENDPOINTS]
    if prefix:  # only where no mutation can reach a real host
        cases += [[endpoint, False] for endpoint in mutated_endpoints(27, 500)]
    result = subprocess.run(
        [*prefix, sys.executable, "-c", ENDPOINT_SCRIPT],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == []


# -- JSON inputs against the demo table ------------------------------------------------------

ENV = {"DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
BIG = "1" * 5000
STATEMENT = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def assert_clean(argv: list[str], code: int, err: str, allowed: tuple[int, ...] = (0, 2)) -> None:
    assert code in allowed, (argv[-2:], code, err)
    assert "unexpected" not in err and "Traceback" not in err, (argv[-2:], err)
    if code:
        assert err.count("\n") == 1 and err.startswith("dynotui: "), (argv[-2:], err)


def query_argv(ddb: Any, *extra: str) -> list[str]:
    return [
        "pages",
        "--endpoint-url",
        ddb.endpoint_url,
        "--table-name",
        demo.TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--max-pages",
        "1",
        "--page-size",
        "3",
        *extra,
    ]


ACME = json.dumps({":c": {"S": demo.BIG_CUSTOMER}})
NEXT_TOKEN_BIG = '{"ExclusiveStartKey": null, "boto_truncate_amount": ' + BIG + "}"
KEY_SURROGATE = '{"customer": {"S": "acme"}, "order_no": {"S": "1\\ud800"}}'
PLAIN_SURROGATE = '{"customer": "acme", "order_no": "\\udfff"}'

# (flag, text) pairs that were exit 1 "unexpected", each now a refusal in one line.
REGRESSIONS = [
    ("--expression-attribute-values", '{":c": ' + BIG + "}"),
    ("--expression-attribute-values", '{":c": {"N": ' + BIG + "}}"),
    ("--expression-attribute-values", '{":c": {"S": "\\ud800"}}'),
    ("--foreign-token", b64(NEXT_TOKEN_BIG)),
    ("--foreign-token", KEY_SURROGATE),
    ("--foreign-token", PLAIN_SURROGATE),
    ("--foreign-token", b64(KEY_SURROGATE)),
    (
        "--foreign-token",
        b64('{"ExclusiveStartKey": ' + KEY_SURROGATE + ', "boto_truncate_amount": 1}'),
    ),
    ("--exclusive-start-key", KEY_SURROGATE),
    ("--exclusive-start-key", PLAIN_SURROGATE),
    ("--parameters", "[" + BIG + "]"),
    ("--parameters", '[{"N": ' + BIG + "}]"),
    ("--parameters", '["\\ud800"]'),
    ("--foreign-token", "1\udc80"),  # a byte that is not UTF-8, as Python reads argv
]


@pytest.mark.parametrize(("flag", "text"), REGRESSIONS, ids=lambda v: str(v)[:24])
def test_inputs_that_were_unexpected_errors_are_refused_in_one_line(
    ddb, demo_table, monkeypatch, flag: str, text: str
) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    if flag == "--parameters":
        argv = ["pages", "--endpoint-url", ddb.endpoint_url, "--statement", STATEMENT, flag, text]
    elif flag == "--expression-attribute-values":
        argv = query_argv(ddb, flag, text)
    else:
        argv = query_argv(ddb, "--expression-attribute-values", ACME, flag, text)
    code, out, err = run_main(argv)
    assert_clean(argv, code, err, allowed=(2,))
    assert out == ""
    if flag in ("--foreign-token", "--exclusive-start-key"):
        decoded = run_main(["cursor", "decode", text])
        assert_clean(["cursor", "decode", text], decoded[0], decoded[2], allowed=(2,))


# JSON text with what breaks readers: huge integers and exponents, lone surrogates, NaN,
# duplicate names, deep nesting, odd types, escapes.
_scalars = st.one_of(
    st.from_regex(r"-?[0-9]{1,6000}", fullmatch=True),
    st.sampled_from(
        ['"\\ud800"', '"a\\udfff"', '"\\ud83d\\ude00"', "NaN", "-Infinity", "1e999999"]
    ),
    st.sampled_from(["true", "null", '""', '"acme"', '"\\u0000"', '"\\u202e"', "-0.0"]),
    st.text(max_size=20).map(json.dumps),
)


def _container(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    names = st.sampled_from(['"S"', '"N"', '"customer"', '"order_no"', '":c"', '"#n"', '"\\ud800"'])
    pairs = st.lists(st.tuples(names, children), max_size=4)
    return st.one_of(
        st.lists(children, max_size=4).map(lambda xs: "[" + ",".join(xs) + "]"),
        pairs.map(lambda ps: "{" + ",".join(f"{k}:{v}" for k, v in ps) + "}"),
    )


json_texts = st.recursive(_scalars, _container, max_leaves=12)
FLAGS = [
    "--expression-attribute-values",
    "--exclusive-start-key",
    "--foreign-token",
    "--starting-token",
    "--expression-attribute-names",
    "--parameters",
    "cursor decode",
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(flag=st.sampled_from(FLAGS), text=json_texts, wrap=st.sampled_from(["", "b64"]))
def test_fuzzed_json_inputs_are_read_or_refused_in_one_line(
    ddb, demo_table, monkeypatch, flag: str, text: str, wrap: str
) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    if wrap:
        text = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()
    given = f"{flag}={text}"  # as one argument: text may start with '-' (-Infinity)
    if flag == "cursor decode":
        argv = ["cursor", "decode", "--", text]
    elif flag == "--parameters":
        argv = ["pages", "--endpoint-url", ddb.endpoint_url, "--statement", STATEMENT, given]
    elif flag == "--expression-attribute-values":
        argv = query_argv(ddb, given)
    else:
        argv = query_argv(ddb, "--expression-attribute-values", ACME, given)
    code, _, err = run_main(argv)
    assert_clean(argv, code, err)
