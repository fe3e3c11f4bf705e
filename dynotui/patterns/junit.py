"""JUnit XML for CI systems: one testcase per pattern, a failure with the figures for
each one over budget.

Written with the standard library's ElementTree, which escapes markup; a pattern's name
and the values tried are made visible text first (``core/text.visible``) and any
character XML 1.0 cannot hold at all is written as its escape, so no name breaks the file
or reaches a CI page as a control sequence.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from dynotui.core.text import visible
from dynotui.patterns.budget import Verdict, summary_words

# Not in XML 1.0's Char production: the C0 controls but tab, newline and return (visible
# has made those pictures already), surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    shown = visible(text)
    return _NOT_XML.sub(lambda found: f"\\u{ord(found.group()):04x}", shown)


def junit_xml(file: str, verdicts: Sequence[Verdict], seconds: Sequence[float]) -> str:
    """The document; ``seconds`` is each pattern's reading time, in the same order."""
    failures = sum(1 for v in verdicts if not v.within)
    suites = ET.Element(
        "testsuites", name="dynotui check", tests=str(len(verdicts)), failures=str(failures)
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=xml_text(file),
        tests=str(len(verdicts)),
        failures=str(failures),
        errors="0",
        skipped="0",
        time=f"{sum(seconds):.3f}",
    )
    for verdict, took in zip(verdicts, seconds, strict=True):
        case = ET.SubElement(
            suite,
            "testcase",
            classname="dynotui.check",
            name=xml_text(verdict.pattern.name),
            time=f"{took:.3f}",
        )
        for over in verdict.over:
            failure = ET.SubElement(
                case, "failure", message=xml_text(over.words()), type=over.figure
            )
            failure.text = xml_text(over.words())
        if verdict.within:
            out = ET.SubElement(case, "system-out")
            out.text = xml_text(summary_words(verdict.pattern.budget, verdict.reads))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
