#!/usr/bin/env python3
"""Asserts the verdict of each DDP scenario of ddp_scenarios.sh, from what
`status --format json` and `report --format json` say of the finished run.
Usage: check_ddp.py OUT SCENARIO...  Prints each verdict as read, then OK or
the first scenario whose verdict is wrong (exit 1)."""
import json
import sys

SLOW_RANK = 1  # ddp_train.py's default --slow-rank; rank r runs on GPU r
HANG_EXIT = 76  # record --on-hang kill (docs/advisor.md)
HANG_DEADLINE_S = 65  # the default threshold (60 s) and a check interval


def load(out, scenario, what):
    with open(f"{out}/ddp_{scenario}.{what}.json") as f:
        return json.load(f)


def line(a):
    text = f"{a['severity']} {a['id']}" + (f" GPU {a['gpu']}" if a.get("gpu") is not None else "")
    if a.get("explained_by"):
        by = a["explained_by"]
        text += f" (explained by {by['id']}" + (f" GPU {by['gpu']})" if by.get("gpu") is not None else ")")
    return text


def ids(advisories, device=None):
    return {a["id"] for a in advisories if device is None or a.get("gpu") == device}


def on(advisories, ident, device):
    return [a for a in advisories if a["id"] == ident and a.get("gpu") == device]


def check_balanced(advisories, gpus, _):
    bad = ids(advisories) & {"balance.straggler", "util.collective_wait", "job.hung", "util.launch_bound"}
    assert not bad, f"a balanced job called {sorted(bad)}"


def check_waits_for_slow_rank(advisories, gpus, _, first_actions=("fix_straggler", "feed_faster", "relieve_host")):
    """The other ranks wait in collectives for the slow rank (not launch-bound), which is the straggler;
    the verdict leads with what holds the job back: the straggler or its own input or host."""
    stragglers = on(advisories, "balance.straggler", SLOW_RANK)
    assert stragglers, f"no balance.straggler on GPU {SLOW_RANK}"
    for g in range(gpus):
        if g == SLOW_RANK:
            continue
        assert not on(advisories, "util.launch_bound", g), f"GPU {g} waits, yet is called launch-bound"
        waits = on(advisories, "util.collective_wait", g)
        assert waits, f"GPU {g}: no util.collective_wait"
        assert (waits[0].get("explained_by") or {}).get("id") == "balance.straggler", waits[0]
    first = advisories[0]
    assert first["action"] in first_actions, f"first is {line(first)} (action {first['action']})"


def check_uneven(advisories, gpus, exit_info):
    check_waits_for_slow_rank(advisories, gpus, exit_info, first_actions=("fix_straggler",))
    straggler = on(advisories, "balance.straggler", SLOW_RANK)[0]
    assert "more to compute" in straggler["summary"], straggler["summary"]


def check_hang(advisories, gpus, exit_info):
    first = advisories[0]
    assert first["id"] == "job.hung" and first["severity"] == "critical", f"first is {line(first)}"
    assert exit_info["exit"] == HANG_EXIT, f"record exited {exit_info['exit']}, not {HANG_EXIT}"
    # record acts --after 10 s of job.hung: what is left is how long the hang took to be called one.
    began = float(exit_info["hang_began"])
    flagged_s = exit_info["ended"] - began - 10
    print(f"hang: began at {began:.1f}, record ended {exit_info['ended'] - began:.1f} s later: "
          f"job.hung within {flagged_s:.1f} s")
    assert flagged_s <= HANG_DEADLINE_S, f"job.hung came {flagged_s:.1f} s after the hang began"


CHECKS = {"balanced": check_balanced, "host_slow": check_waits_for_slow_rank,
          "data_starved": check_waits_for_slow_rank, "uneven": check_uneven, "hang": check_hang}


def main():
    out, scenarios = sys.argv[1], sys.argv[2:]
    failed = []
    for s in scenarios:
        status = load(out, s, "status")
        report = load(out, s, "report")
        exit_info = load(out, s, "exit")
        advisories = status["advisories"]
        print(f"{s}: status verdict {status.get('verdict')}; " + "; ".join(line(a) for a in advisories))
        print(f"{s}: report verdict {report.get('verdict')}; "
              + "; ".join(line(a) for a in report.get("advisories", [])))
        try:
            CHECKS[s](advisories, exit_info["gpus"], exit_info)
            assert [line(a) for a in report.get("advisories", [])] == [line(a) for a in advisories], \
                "report and status disagree"
            print(f"{s}: OK")
        except AssertionError as e:
            print(f"{s}: FAILED: {e}")
            failed.append(s)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
