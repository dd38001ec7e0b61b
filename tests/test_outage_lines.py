"""A bot that keeps going down is summed up, not said twice per crash: the lines ``ladder run`` and
``season run`` print as a bot goes down and comes back (``cli.progress.OutageLines``)."""

from __future__ import annotations

from cli.progress import OUTAGES_SAID, SUM_UP_EVERY, OutageLines


def crash(lines: OutageLines, name: str, times: int) -> list[str]:
    said = []
    for i in range(times):
        for line in (lines.down(name, f"{name} is down (refused {i})", f"refused {i}"),
                     lines.back(name, f"{name} answers again")):
            if line is not None:
                said.append(line)
    return said


def test_a_bot_that_keeps_crashing_gets_a_summary_instead_of_a_pair_of_lines_per_crash() -> None:
    lines = OutageLines()
    said = crash(lines, "crashy", 25)
    # its first outages as they happen, down then back
    assert said[:2 * OUTAGES_SAID] == [x for i in range(OUTAGES_SAID)
                                       for x in (f"crashy is down (refused {i})", "crashy answers again")]
    rest = said[2 * OUTAGES_SAID:]
    # then one line saying that it is summed up from now on, and one every SUM_UP_EVERY outages
    assert rest[0].startswith(f"crashy is down again (refused {OUTAGES_SAID}): down {OUTAGES_SAID + 1} times")
    assert rest[1:] == [f"crashy keeps going down: {n} times in this run (last: refused {n - 1})"
                        for n in range(SUM_UP_EVERY, 26, SUM_UP_EVERY)]
    assert len(said) < 25  # not a pair per crash
    assert lines.summary() == ["crashy went down 25 times in this run (last: refused 24)"]


def test_a_bot_down_once_is_said_in_full_and_not_summed_up() -> None:
    lines = OutageLines()
    assert crash(lines, "steady", 1) == ["steady is down (refused 0)", "steady answers again"]
    assert crash(lines, "other", OUTAGES_SAID) and lines.summary() == []
