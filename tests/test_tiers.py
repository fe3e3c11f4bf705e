"""The tiers' reading (``tests/tiers.py``) on the suite's own helpers and tests: what starts
a process is found through the helpers it calls, what runs in-process is not, and a test
of the fast tier that starts a process fails. (Names are looked up from strings here: this
test's own code must not name a starter, or it would be marked itself.)"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import helpers
import processes
import pytest
import test_read_ahead
import test_view_reader
import tiers


def named(module: Any, name: str) -> Any:
    return vars(module)[name]


@pytest.mark.parametrize(
    ("module", "name", "starts"),
    [
        (processes, "interruptible", True),  # subprocess.Popen
        (test_read_ahead, "test_the_command_reads_ahead_with_the_flag", True),  # a Terminal
        (test_read_ahead, "test_serve_says_a_bad_read_ahead_once_before_it_listens", False),
        (helpers, "run_in_process", False),  # the CLI in this process
        (helpers, "until", False),
        (test_view_reader, "test_a_jump_reads_ahead_once_its_walk_ends", False),
    ],
)
def test_what_starts_a_process_is_found_through_the_helpers(
    module: Any, name: str, starts: bool
) -> None:
    assert tiers.Reader().starts(named(module, name)) is starts


def test_a_helper_is_followed_to_what_it_calls() -> None:
    # ``on_the_demo_table`` is named a starter, but what it calls would be found anyway.
    import terminal

    reader = tiers.Reader()
    assert reader.starts(named(terminal, "on_the_demo_table"))
    assert vars(terminal)["Terminal"].__name__ in tiers.STARTERS


def test_the_guard_refuses_a_process_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker(tiers.SERVER) is None  # this test is fast
    start = vars(subprocess)["run"]
    with pytest.raises(AssertionError, match="starts a process but is not marked 'server'"):
        start([sys.executable, "-c", "pass"], check=False)
