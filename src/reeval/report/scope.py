"""What the HTML report shows of a study, decided from its config alone (so that the
workflow decides it while it is parsed, importing nothing heavy): the papers onto whose
benchmarks the study maps a track, and the report's title."""

from __future__ import annotations

from pathlib import Path

#: the papers' section when no track of the study is mapped onto a paper's benchmark
NO_PAPER_MAPPED = ("No track of this study is mapped onto a paper's benchmark, so the papers' cells are not "
                   "shown here (papers/paper_comparison.md lists them, without values of ours). To compare a "
                   "track with a paper, name it under <code>study.paper</code> (the ASL paper), "
                   "<code>lexiprecision.paper</code> or <code>rareness.paper</code> in the config "
                   "(docs/studies.md).")


def mapped_papers(config: dict) -> list:
    """The papers onto whose benchmarks the study maps a track, from a config with its
    defaults filled: ``"ASL"`` when ``study.paper`` names a track or ``study.scope`` is
    ``asl-paper`` or ``asl-paper-adhoc``, ``"lexiprecision"`` and ``"rareness"`` when their ``paper`` mapping is
    not empty. Empty when none is (the report then shows :data:`NO_PAPER_MAPPED`)."""
    study = config.get("study") or {}
    papers = []
    if any((study.get("paper") or {}).values()) or study.get("scope") in ("asl-paper", "asl-paper-adhoc"):
        papers.append("ASL")
    papers += [name for name in ("lexiprecision", "rareness") if (config.get(name) or {}).get("paper")]
    return papers


def report_title(configfiles) -> str:
    """The report's title: ``reeval report`` and the names of the config files (no folder:
    a machine's path says nothing to a reader of the report), ``config.yaml`` when none was
    given (the default study)."""
    names = [Path(str(f)).name for f in configfiles] or ["config.yaml"]
    return f"reeval report: {', '.join(names)}"
