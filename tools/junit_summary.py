#!/usr/bin/env python3
"""Counts the results in JUnit XML files (pytest --junitxml, ctest --output-junit).

    python3 tools/junit_summary.py FILE...            "N passed, N failed, N errors, N skipped"
    python3 tools/junit_summary.py --counts FILE...   "passed failed skipped" (failed counts errors)
    python3 tools/junit_summary.py --skips FILE...    the line, then the skipped tests by reason

A missing or unreadable file is an error (exit 1), so a run that wrote nothing never reads as
zero failures.
"""
import sys
import xml.etree.ElementTree as ET

KINDS = ("failure", "error", "skipped")
SHOWN = 8  # skipped tests listed per reason


def outcome(case):
    for kind in KINDS:
        if case.find(kind) is not None:
            return kind
    # ctest marks tests it did not run with status="notrun" (and a <skipped> child in newer versions)
    return "skipped" if case.get("status") in ("notrun", "disabled") else "passed"


def main(argv):
    mode = "line"
    files = []
    for a in argv:
        if a in ("--counts", "--skips"):
            mode = a[2:]
        else:
            files.append(a)
    if not files:
        sys.exit(__doc__)
    cases = []
    for f in files:
        try:
            cases += list(ET.parse(f).getroot().iter("testcase"))
        except (OSError, ET.ParseError) as e:
            sys.exit(f"junit_summary: cannot read {f}: {e}")
    n = {k: 0 for k in ("passed",) + KINDS}
    for c in cases:
        n[outcome(c)] += 1
    if mode == "counts":
        print(n["passed"], n["failure"] + n["error"], n["skipped"])
        return
    print(f"{n['passed']} passed, {n['failure']} failed, {n['error']} errors, {n['skipped']} skipped")
    if mode == "skips":
        by_reason = {}
        for c in cases:
            if outcome(c) == "skipped":
                node = c.find("skipped")
                reason = node.get("message", "") if node is not None else c.get("status", "")
                by_reason.setdefault(reason, []).append(f"{c.get('classname')}::{c.get('name')}")
        for reason, tests in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
            print(f"    {len(tests)} skipped: {reason}")
            for t in tests[:SHOWN]:
                print(f"        {t}")
            if len(tests) > SHOWN:
                print(f"        ... and {len(tests) - SHOWN} more")


if __name__ == "__main__":
    main(sys.argv[1:])
