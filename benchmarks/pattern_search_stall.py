"""Where a pattern-search run spends its evaluations: read its run record and result.yaml, split the
evaluations into polls (result.yaml's history gives the count after each poll) and count

- evaluations in polls that improved the incumbent and in polls that did not (mesh contractions),
- in improving polls, the position of the first improving point: an opportunistic poll evaluated in
  chunks of ``workers`` points could have stopped after the chunk that holds it,
- evaluations at poll size 1 (the whole range: the points land on the bounds),
- the tail: evaluations after the run came within 0.1 % of its final fitness.

    .venv/bin/python benchmarks/pattern_search_stall.py RUN_FOLDER [--workers 2] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import yaml


def analyse(record: Path, result: Path, workers: int) -> dict:
    lines = [json.loads(t) for t in record.read_text().splitlines()]
    evaluations = [line for line in lines[1:] if line.get("kind") == "evaluation"]
    history = yaml.safe_load(result.read_text())["history"]
    fitness = [math.inf if e["fitness"] is None else e["fitness"] for e in evaluations]
    polls = []
    for before, after in zip(history, history[1:]):
        chunk = fitness[before["evaluations"]:after["evaluations"]]
        improved = after["fitness"] < before["fitness"]
        first = next((i for i, f in enumerate(chunk) if f < before["fitness"]), None)
        polls.append({"poll_size": before["poll_size"], "points": len(chunk), "improved": improved,
                      "first_improving": first, "gain": before["fitness"] - after["fitness"]})
    final = history[-1]["fitness"]
    reached = next(h["evaluations"] for h in history if h["fitness"] <= final * 1.001)
    improving = [p for p in polls if p["improved"]]
    saved = sum(p["points"] - workers * math.ceil((p["first_improving"] + 1) / workers) for p in improving)
    return {
        "evaluations": len(evaluations), "polls": len(polls), "final_fitness": final,
        "improving_polls": len(improving), "failed_polls": len(polls) - len(improving),
        "evaluations_in_improving_polls": sum(p["points"] for p in improving),
        "evaluations_in_failed_polls": sum(p["points"] for p in polls if not p["improved"]),
        "first_improving_position": [p["first_improving"] for p in improving],
        "evaluations_an_opportunistic_chunked_poll_saves": saved,
        "evaluations_at_poll_size_1": sum(p["points"] for p in polls if p["poll_size"] >= 1.0),
        "gain_at_poll_size_1": sum(p["gain"] for p in polls if p["poll_size"] >= 1.0),
        "evaluations_to_within_0.1_percent_of_final": reached,
        "tail_evaluations": len(evaluations) - reached,
        "polls_detail": polls,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, help="run folder with record.jsonl and result.yaml")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the analysis here")
    args = parser.parse_args()
    report = analyse(args.run / "record.jsonl", args.run / "result.yaml", args.workers)
    for key, value in report.items():
        if key != "polls_detail":
            print(f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
