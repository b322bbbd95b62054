"""environment.yml and pyproject.toml list the same runtime dependencies."""

import re
import tomllib

import yaml

from conftest import ROOT


def names(specs):
    return {re.split(r"[<>=!~ \[]", s, maxsplit=1)[0].strip().lower().replace("_", "-") for s in specs}


def test_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    conda += [s for d in env["dependencies"] if isinstance(d, dict) for s in d.get("pip", [])]
    conda_names = names(conda) - {"python", "pip"}
    assert conda_names == names(project["dependencies"])
    # and the same lower bounds
    bound = lambda specs: {names([s]).pop(): s.split(">=")[1] for s in specs if ">=" in s}
    assert {k: v for k, v in bound(conda).items() if k != "python"} == bound(project["dependencies"])
