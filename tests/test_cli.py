"""pybridge's command line: presets, config files, exit codes, errors without tracebacks."""
from __future__ import annotations

import pytest
import yaml

from pybridge import cli
from pybridge.cli import main
from pybridge.config import load_preset


def written(tmp_path, name, *argv):
    path = tmp_path / name
    assert main([*argv, "--write-config", str(path)]) == 0
    return yaml.safe_load(path.read_text())


def test_presets_layer_under_config_files_and_flags(tmp_path):
    standard, expert = load_preset("standard"), load_preset("expert")
    assert expert["pattern_search"]["max_evaluations"] > standard["pattern_search"]["max_evaluations"]
    assert written(tmp_path, "a.yaml", "demo")["pattern_search"] == standard["pattern_search"]
    assert written(tmp_path, "b.yaml", "demo", "--preset", "expert")["sensitivity"] == expert["sensitivity"]
    config = tmp_path / "mine.yaml"
    config.write_text("preset: expert\nworkers: 1\npattern_search: {poll: mads}\nsensitivity: {samples: 3}\n")
    merged = written(tmp_path, "c.yaml", "identify", "--config", str(config), "--max-evaluations", "7")
    assert merged["pattern_search"] == {**expert["pattern_search"], "poll": "mads", "max_evaluations": 7}
    assert merged["sensitivity"]["samples"] == 3 and merged["workers"] == 1
    assert written(tmp_path, "d.yaml", "identify", "--config", str(config), "--workers", "2")["workers"] == 2
    again = written(tmp_path, "e.yaml", "demo", "--config", str(tmp_path / "c.yaml"))  # a written file reads back
    assert again == {**merged, "format": again["format"]}


@pytest.mark.parametrize("text, expected", [
    ("pattern_search: {max_evaluation: 5}\n", "pattern_search.max_evaluation: unknown setting"),
    ("pattern_search: {max_evaluations: many}\n", "pattern_search.max_evaluations: 'many' is not a int"),
    ("sensitivity: 4\n", "sensitivity: expected a mapping"),
    ("preset: novice\n", "preset: 'novice'; expected one of standard, expert"),
    ("pattern_search: [\n", ":2:1: not valid YAML"),
    ("- a list\n", "expected a mapping of settings"),
])
def test_bad_config_files_name_the_file_and_key(tmp_path, capsys, text, expected):
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    assert main(["demo", "--config", str(config), "--write-config", str(tmp_path / "x.yaml")]) == cli.EXIT_INPUT
    err = capsys.readouterr().err
    assert str(config) in err and expected in err and "Traceback" not in err
    assert not (tmp_path / "x.yaml").exists()


def test_config_sets_flags_of_any_command_and_rejects_unknown_keys(tmp_path, capsys):
    config = tmp_path / "convert.yaml"
    config.write_text(yaml.safe_dump({"mbm_dir": str(tmp_path / "nothing"), "out": str(tmp_path / "params")}))
    assert main(["convert", "--config", str(config)]) == cli.EXIT_INPUT  # the flags came from the file ...
    assert "nothing" in capsys.readouterr().err                          # ... and reached the converter
    config.write_text("out: x\npattern_search: {poll: mads}\n")
    assert main(["convert", "--config", str(config)]) == cli.EXIT_INPUT
    err = capsys.readouterr().err
    assert "unknown setting(s) pattern_search" in err and "mbm-dir" in err


def test_missing_required_flags_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["convert"])
    assert stop.value.code == cli.EXIT_INPUT
    assert "mbm_dir, -o/--out required" in capsys.readouterr().err


def test_errors_are_one_line_unless_debug(tmp_path, capsys):
    argv = ["convert", str(tmp_path / "nothing"), "-o", str(tmp_path / "params")]
    assert main(argv) == cli.EXIT_INPUT
    assert "Traceback" not in capsys.readouterr().err
    assert main([*argv, "--debug"]) == cli.EXIT_INPUT
    assert "Traceback" in capsys.readouterr().err


def test_runtime_failures_and_interrupts_have_their_own_exit_codes(tmp_path, capsys, monkeypatch):
    broken = tmp_path / "broken.fmu"
    broken.write_text("not a zip archive")
    argv = ["simulate", "--scenario", "braking", "--fmu", str(broken), "-o", str(tmp_path / "t.csv")]
    assert main(argv) == cli.EXIT_INPUT  # a damaged FMU archive is bad input, refused before unpacking
    assert f"{broken}: not an FMU (not a zip archive)" in capsys.readouterr().err

    def failing(args):
        raise RuntimeError("fmi2DoStep failed")

    monkeypatch.setattr(cli, "_simulate", failing)
    assert main(argv) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert "pybridge simulate: failed" in err and "--debug" in err and not (tmp_path / "t.csv").exists()

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_convert", interrupted)
    assert main(["convert", str(tmp_path), "-o", str(tmp_path / "p")]) == cli.EXIT_INTERRUPTED


def test_help_teaches_with_examples(capsys):
    for command in ("demo", "convert", "simulate", "identify", "report"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "Example" in out and "--config" in out and "--quiet" in out and "--debug" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "Exit codes" in capsys.readouterr().out
