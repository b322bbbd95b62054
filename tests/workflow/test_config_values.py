"""Config values are checked when the config is read: numbers finite and bounded, patterns
compiled (before, ``.nan`` passed as a margin and printed "at least nan% better", and
``groups: '('`` or ``hsd_resamples`` above the command line's bound failed in a job)."""

import pytest

from reeval.workflow.config_check import with_defaults
from test_config_bounds import local, refused


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("cfg, expected", [
    (local(study={"reorder": {"margin": NAN}}), "config study.reorder.margin: nan is not a finite number"),
    (local(study={"reorder": {"alpha": NAN}}), "config study.reorder.alpha: nan is not a finite number"),
    (local(lexiprecision={"alpha": NAN}), "config lexiprecision.alpha: nan is not a finite number"),
    (local(rareness={"fuzziness": INF}), "config rareness.fuzziness: inf is not a finite number"),
    (local(rareness={"alpha": [0, INF]}), "config rareness.alpha.1: inf is not a finite number"),
    (local(reusability={"alpha": NAN}), "config reusability.alpha: nan is not a finite number"),
    (local(fetch={"timeout": INF}), "config fetch.timeout: inf is not a finite number"),
    (local(fetch={"timeout": -INF}), "config fetch.timeout: -inf is not a finite number"),
    (local(lexiprecision={"hsd_resamples": 10**12}),
     "config lexiprecision.hsd_resamples: 1000000000000 is greater than the maximum of 1000000000"),
    (local(rareness={"seed": 2**64}), f"config rareness.seed: {2**64} is greater than the maximum of {2**63 - 1}"),
    (local(lexiprecision={"hsd_seeds": [0, 2**64]}), "config lexiprecision.hsd_seeds.1: "),
    ({"tracks": {"t": {"qrels": "q", "runs": "r", "groups": "("}}},
     "config tracks.t.groups: '(' names no file and is not a regular expression (missing ), unterminated "
     "subpattern at position 0)"),
    ({"tracks": {"t": {"qrels": "q", "runs": "r", "pooled": "[a"}}},
     "config tracks.t.pooled: '[a' names no file and is not a regular expression (unterminated character set"),
])
def test_a_value_a_job_would_fail_on_or_misread_is_refused_when_the_config_is_read(cfg, expected):
    message = refused(cfg)
    assert message.startswith(expected) and "\n" not in message, message


def test_finite_numbers_patterns_and_files_pass(tmp_path):
    groups = tmp_path / "groups.txt"
    groups.write_text("r1 a\n")
    cfg = with_defaults({"tracks": {"t": {"qrels": "q", "runs": "r", "groups": r"^(\w+)-", "pooled": "run[12]"},
                                    "u": {"qrels": "q", "runs": "r", "groups": str(groups)}},
                         "study": {"reorder": {"margin": 0}}, "fetch": {"timeout": None},
                         "lexiprecision": {"hsd_resamples": 10**9}})
    assert cfg["study"]["reorder"]["margin"] == 0 and cfg["fetch"]["timeout"] is None


@pytest.mark.parametrize("cfg, expected", [
    ({"tracks": {"t": {"qrels": "q", "runs": "r", "relevence_level": 2}}},
     "config tracks.t: unknown key 'relevence_level'; did you mean 'relevance_level'?"),
    (local(defaults={"relevence_level": 2}), "config defaults: unknown key 'relevence_level'; did you mean 'relevance_level'?"),
    (local(mesures=["map"]), "config (top level): unknown key 'mesures'; did you mean 'measures'?"),
    (local(study={"min_run": 3}), "config study: unknown key 'min_run'; did you mean 'min_runs'?"),
    (local(zzzz=1), "config (top level): unknown key 'zzzz'; accepted keys: results, defaults, measures, "),
])
def test_a_misspelt_key_is_answered_with_the_key_meant(cfg, expected):
    message = refused(cfg)
    assert message.startswith(expected) and "\n" not in message, message
