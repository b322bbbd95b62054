"""The study's track manifest, written from the TREC catalog (``../shared/catalog``).

The manifest (``config/trec-manifest.yaml``) is this project's own file: one entry per
track of the reanalysis study, in the workflow's track format (see :mod:`reeval.workflow.tracks`)::

    trec1993-adhoc:
      edition: trec2
      year: 1993
      track: adhoc
      task: null
      relevance_level: 1
      urls:
        qrels: [{url: https://trec.nist.gov/data/qrels_eng/qrels.101-150...parts1-5.tar.gz}]
        topics: "101-150"          # only where one qrels file serves several tasks
        alternative_qrels:         # only where the track's page links other qrels files
          - {url: https://.../qrels-covid_d3_j0.5-3.txt, label: Cumulative qrels for Round 3 ...}
        runs:
          - {run: Brkly3, url: https://trec.nist.gov/results/trec2/..., md5: ..., participant: berkeley, technique: ...}

Selection: every catalog row the ASL paper's stated criteria keep
(:func:`reeval.archive.stated_criteria.stated_reason`: 1993-2020, qrels and Past Results run
files identified, >= 5 run files, ranked lists, the 2003 Web track skipped), so that a
complete fetch of ``study.scope: asl-paper`` fetches every track they keep; and the
catalog's ``analysis_candidate = yes`` rows from 1993 to 2021 (the TREC-COVID rounds and the
2021 tracks the criteria leave out), minus the 2003 Web track (its topic sets were meant to
be evaluated separately). Each entry carries the catalog's ``kind`` (``adhoc`` or
``ranked-other``), which ``study.scope: asl-paper-adhoc`` reads (:mod:`reeval.archive.scope`).

Runs: every catalog run of the track that has an input URL (a run tag listed twice keeps
its first URL: TREC-4 routing's ``ORAdL1`` under both Categorya and Categoryb), with its
``participant`` (the catalog's; the group left out together in the reusability study,
:mod:`reeval.analyses.reusability`) where the catalog names one.

Qrels choice: the catalog lists every qrels link of a track page; the manifest keeps the
file(s) trec_eval used for the official ad hoc scores. :data:`QRELS_EXCLUDE` drops the
variants that are not (sampled/inferred-measure files, raw judgments, diversity/ndeval
files, training qrels, passage judgments, modified copies, HTML pages), links under
"Qrels" are preferred over "Other" ones, and :data:`QRELS_OVERRIDES` names the choice
where a rule cannot (with the reason: for the tracks judged with prels, statAP or sampling
probabilities, the file of the track's main task; whether it parses as qrels is decided on
the file, by the fetch and ingest). Generation fails if a track is left with zero or
several candidate files, so a catalog change cannot slip through silently.

Alternative qrels: the track page's other links that hold a qrels file trec_eval reads (a
cumulative or chronological qrels, all judgments, a modified copy, raw judgments in the qrels
format), with their labels, as ``urls: alternative_qrels:`` (:func:`alternative_qrels`):
fetched with the track, among the qrels the audit searches (docs/audit.md). Left out: per-part splits of the chosen file, pages,
CSV files and the formats of other programs (sample_eval, infAP, ndeval, passage judgments).

Technique labels (``neural``, ``bm25``, ``traditional``). From evidence where it was
reviewed: ``technique_labels.csv`` (beside this module) labels every run of the tracks it
covers (the ASL paper's table 1 tracks, TREC DL 2020 documents and passages) from the run's
own description in ``run_descriptions.csv``, each label with its reason and the words of the
description it rests on (``evidence``), written to the run as ``technique`` and
``technique_reason``. ``bm25``: BM25 alone, with or without pseudo-relevance feedback
(RM3); ``neural``: a neural model anywhere in the ranking (a re-ranker over BM25, a dense
first stage, neural document expansion such as doc2query); ``traditional``: any other
ranking without a neural model (language models, DFR, BM25 with other features, learning to
rank on non-neural features). A tag says less: ``p_bm25rm3_duo`` is a duoT5 re-ranker.
Other tracks (not reviewed): a label only where a run tag from 2019 on names the method
(:data:`TECHNIQUE_PATTERNS`, first match wins), without a reason; other runs have no
``technique`` key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import yaml

from .stated_criteria import stated_reason

YEARS = (1993, 2021)
#: (edition, track) pairs left out of the study, with the reason
SKIPPED = {("trec12", "web"): "2003 Web track: topic sets meant to be evaluated separately"}

QRELS_EXCLUDE = re.compile(
    r"sampl|infap|fullsample|judgments\.\d{4}|\.csv$|ndeval|passage\.judgements|training"
    r"|expgains|-no1\.|\.html$|qrels\.all\.txt|_raw|_correctness|d\d_j0\.5-\d",
    re.IGNORECASE)

#: (edition, track, task) -> (qrels URLs, topics or None, reason)
QRELS_OVERRIDES = {
    ("trec2", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.101-150.disk1.disk2.parts1-5.tar.gz"], None,
        "the per-part links of the TREC-2 page point to the TREC-1 qrels (51-100)"),
    ("trec3", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.151-200.201-250.disks1-3.all.tar.gz"], "151-200",
        "one archive holds the TREC-3 (151-200) and TREC-4 (201-250) qrels"),
    ("trec4", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.201-250.disk2.disk3.parts1-5.tar.gz"], None,
        "the parts1-5 archive combines the per-part files"),
    ("trec5", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.251-300.parts1-5.tar.gz"], None,
        "the parts1-5 archive combines the per-part files"),
    ("trec6", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.trec6.adhoc.parts1-5.tar.gz"], None,
        "the parts1-5 archive combines the per-part files"),
    ("trec7", "adhoc", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.trec7.adhoc.parts1-5.tar.gz"], None,
        "the parts1-5 archive combines the per-part files"),
    ("trec7", "sdr", None): (
        ["https://trec.nist.gov/data/qrels_eng/qrels.trec7.sdr.gz"], None,
        "the qrels_eng file linked as the track's qrels (the sdr98 page copy is an 'Other' link)"),
    ("trec11", "filtering", "routing"): (
        ["https://trec.nist.gov/data/filtering/qrels.final.all.newformat"], None,
        "the final evaluation qrels (the other link is the test qrels)"),
    ("trec15", "enterprise", "expert"): (
        ["https://trec.nist.gov/data/enterprise/06/ent06.qrels.expert"], None,
        "the expert judgments (expert-docs judges the supporting documents)"),
    ("trec16", "legal", "main"): (
        ["https://trec.nist.gov/data/legal/07/qrelsL07.normal"], None,
        "the judgments (.probs holds the sampling probabilities of the estimated measures)"),
    ("trec16", "legal", "routing"): (
        ["https://trec.nist.gov/data/legal/07/qrelsL07.rf"], None,
        "the judgments (.rf_probs holds the sampling probabilities of the estimated measures)"),
    ("trec17", "blog", "polarity"): (
        ["https://trec.nist.gov/data/blog/08/08.qrels.positive.all-topics"], None,
        "the positive-polarity qrels (the negative ones, for the negative runs, are an alternative)"),
    ("trec18", "blog", "feed"): (
        ["https://trec.nist.gov/data/blog/09/09.distillation-qrels.official"], None,
        "the 39 official evaluation topics (the full file adds the others)"),
    ("trec18", "blog", "topstories"): (
        ["https://trec.nist.gov/data/blog/09/blog09.topnews-blogpost.qrels"], None,
        "the blog-post qrels (the other link is the topics file)"),
    ("trec18", "million-query", None): (
        ["https://trec.nist.gov/data/million.query/09/prels.20001-60000.gz"], None,
        "the prels judgments (erels is the MTC tool's input)"),
    ("trec18", "relfdbk", None): (
        ["https://trec.nist.gov/data/relevance.feedback/09/prels.catB.1-50.gz"], None,
        "the category B prels (the ClueWeb09 subset every run searched; category A and the phase-1 "
        "archive are alternatives)"),
    ("trec18", "web", "adhoc"): (
        ["https://trec.nist.gov/data/web/09/prels.1-50.gz"], None,
        "the ad hoc prels of every run (category A and B only are alternatives)"),
    ("trec20", "entity", "ref|reflod"): (
        ["https://trec.nist.gov/data/entity/11/refqrels.txt"], None,
        "the qrels (refjudgments holds the raw judgments)"),
    ("trec22", "context", None): (
        ["https://trec.nist.gov/data/context/2013/desc-doc.qrels.txt"], None,
        "the description judgments (the track's script also reads the geo-user and geo-NIST ones, "
        "alternatives here)"),
    ("trec23", "context", None): (
        ["https://trec.nist.gov/data/context/2014/desc-doc.qrels.txt"], None,
        "the description judgments (the track's script also reads the geo-user and geo-NIST ones, "
        "alternatives here)"),
    ("trec22", "web", None): (
        ["https://trec.nist.gov/data/web/2013/qrels.adhoc.txt"], None,
        "ad hoc judgments (one aspect per topic), as trec_eval's official ad hoc scores"),
    ("trec23", "web", None): (
        ["https://trec.nist.gov/data/web/2014/qrels.adhoc.txt"], None,
        "ad hoc judgments (one aspect per topic), as trec_eval's official ad hoc scores"),
}

#: (edition, track, task) -> a caveat added to the track's description
NOTES = {
    ("trec19", "web", "adhoc"): (
        "the page links one file, 10.diversity-qrels.final, for the adhoc and diversity tasks; "
        "if it holds one line per subtopic, ingest keeps a document's last judgment, not its "
        "highest: check before publishing this track's numbers"),
}

#: relevance level of the official trec_eval scores where it is not 1 (the levels that
#: reproduce the published figures of the tracks in ../shared/data, see shared-data.yaml)
RELEVANCE_LEVELS = {("trec29", "deep", "passages"): 2, ("trec30", "cast", None): 2}

#: tag patterns naming a method, applied to runs from TECHNIQUE_FROM_YEAR on (the neural
#: ranking era: earlier tags such as ``robertson`` or ``rmit5d1025`` would match by accident)
TECHNIQUE_FROM_YEAR = 2019
TECHNIQUE_PATTERNS = (
    ("neural", re.compile(r"(?<!no)bert|monot5|duot5|doc2query|(?:^|[-_.])m?t5(?:$|[-_.r])|mdt5|t53b"
                          r"|(?:^|[-_])tct|unicoil|colbert|electra|_nn(?:$|_)", re.IGNORECASE)),
    ("bm25", re.compile(r"bm25", re.IGNORECASE)),
    ("traditional", re.compile(r"_trad$", re.IGNORECASE)),
)


def technique(run_tag: str) -> str | None:
    """Method label from a run tag, or None when the tag does not name one."""
    for label, pattern in TECHNIQUE_PATTERNS:
        if pattern.search(run_tag):
            return label
    return None


#: the reviewed technique labels (module doc): edition, track, task, run, technique, evidence, reason
TECHNIQUE_LABELS = Path(__file__).with_name("technique_labels.csv")


def reviewed_techniques(path=TECHNIQUE_LABELS) -> dict:
    """{(edition, track, task): {run: (technique, reason)}} from the reviewed list; the
    reason quotes the run description's words the label rests on."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    out: dict = {}
    for r in table.itertuples():
        key = (r.edition, r.track, r.task or None)
        out.setdefault(key, {})[r.run] = (r.technique, f'{r.reason}; its description: "{r.evidence}"')
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def track_id(edition: str, year: int, track: str, task, split: bool) -> str:
    """``trec<year>-<track>[-<task>]``; TREC-COVID rounds are ``trec-covid-<round>``."""
    base = f"trec-covid-{_slug(track)}" if edition == "trec-covid" else f"trec{year}-{_slug(track)}"
    if split and isinstance(task, str):
        base += "-" + _slug(task.split("=")[-1])
    return base


def choose_qrels(row) -> tuple[list[str], str | None, str]:
    """(qrels URLs, topics or None, reason) for one catalog track row."""
    task = row.task if isinstance(row.task, str) else None
    key = (row.trec_edition, row.track, task)
    if key in QRELS_OVERRIDES:
        return QRELS_OVERRIDES[key]
    links = json.loads(row.qrels_json)
    for field in ("Qrels", "Other"):
        urls = list(dict.fromkeys(link["url"] for link in links if link["field"] == field
                                  and not QRELS_EXCLUDE.search(link["url"])
                                  and not QRELS_EXCLUDE.search(link["label"])
                                  and not link["label"].lower().startswith(("modified", "raw"))))
        if urls:
            break
    if len(urls) != 1:
        raise ValueError(f"{key}: {len(urls)} candidate qrels files {urls}; add a QRELS_OVERRIDES entry")
    return urls, None, "the track's trec_eval qrels link"


#: links that are no alternative qrels (module doc): parts, pages, CSV, other programs' formats
ALTERNATIVE_EXCLUDE = re.compile(r"\.part\d|\.html$|\.csv$|ndeval|sampl|infap|passage\.judgements", re.IGNORECASE)


def alternative_qrels(row, chosen) -> list[dict]:
    """The catalog row's other qrels links (not in ``chosen``, not matching
    :data:`ALTERNATIVE_EXCLUDE` by URL or label), each ``{url, label}`` once, in page order."""
    out = {}
    for link in json.loads(row.qrels_json):
        url, label = link["url"], link["label"].strip()
        if url in chosen or url in out or ALTERNATIVE_EXCLUDE.search(url) or ALTERNATIVE_EXCLUDE.search(label):
            continue
        out[url] = {"url": url, "label": label or url.rsplit("/", 1)[-1]}
    return list(out.values())


def study_rows(tracks: pd.DataFrame) -> pd.DataFrame:
    """The catalog rows the study selects (see the module docstring): those the ASL paper's
    stated criteria keep, and the ``analysis_candidate = yes`` rows of :data:`YEARS`, minus
    :data:`SKIPPED`."""
    stated = pd.Series([stated_reason(r) is None for r in tracks.to_dict("records")], index=tracks.index, dtype=bool)
    sel = tracks[stated | ((tracks.analysis_candidate == "yes") & tracks.year.between(*YEARS))]
    skip = sel.apply(lambda r: (r.trec_edition, r.track) in SKIPPED, axis=1)
    return sel[~skip]


def build_manifest(catalog_dir) -> dict:
    """The manifest as a dict ``{track id: entry}`` from ``tracks.csv`` and ``runs.csv``."""
    catalog_dir = Path(catalog_dir)
    tracks = pd.read_csv(catalog_dir / "tracks.csv")
    runs = pd.read_csv(catalog_dir / "runs.csv", low_memory=False,
                       usecols=["trec_edition", "track", "catalog_task", "run_tag", "md5", "input_url", "participant"])
    rows = study_rows(tracks)
    reviewed = reviewed_techniques()
    n_rows = tracks.groupby(["trec_edition", "track"]).size()
    runs = runs[runs.input_url.notna()]
    by_key = {k: g for k, g in runs.groupby(["trec_edition", "track", runs.catalog_task.fillna("")])}
    manifest = {}
    for row in rows.itertuples():
        task = row.task if isinstance(row.task, str) else None
        tid = track_id(row.trec_edition, row.year, row.track, task,
                       split=n_rows[(row.trec_edition, row.track)] > 1)
        if tid in manifest:
            raise ValueError(f"track id {tid} is not unique")
        qrels, topics, reason = choose_qrels(row)
        group = by_key.get((row.trec_edition, row.track, task or ""), runs.iloc[:0])
        run_list = []
        labels = reviewed.get((row.trec_edition, row.track, task))
        for r in group.sort_values(["run_tag", "input_url"]).drop_duplicates("run_tag").itertuples():
            item = {"run": str(r.run_tag), "url": r.input_url}
            if isinstance(r.md5, str) and r.md5:
                item["md5"] = r.md5
            if isinstance(r.participant, str) and r.participant.strip():
                item["participant"] = r.participant.strip()
            if labels is not None:
                if str(r.run_tag) not in labels:
                    raise ValueError(f"{tid}: run {r.run_tag} is not in the reviewed list {TECHNIQUE_LABELS.name}")
                item["technique"], item["technique_reason"] = labels[str(r.run_tag)]
            else:
                label = technique(str(r.run_tag)) if row.year >= TECHNIQUE_FROM_YEAR else None
                if label:
                    item["technique"] = label
            run_list.append(item)
        urls = {"qrels": [{"url": u} for u in qrels]}
        if topics:
            urls["topics"] = topics
        alternatives = alternative_qrels(row, qrels)
        if alternatives:
            urls["alternative_qrels"] = alternatives
        urls["runs"] = run_list
        manifest[tid] = {
            "edition": row.trec_edition, "year": int(row.year), "track": row.track, "task": task, "kind": row.kind,
            "description": f"{row.track_name}" + (f" ({task})" if task else "") + f"; qrels: {reason}"
                           + (f"; NOTE: {NOTES[(row.trec_edition, row.track, task)]}"
                              if (row.trec_edition, row.track, task) in NOTES else ""),
            "relevance_level": RELEVANCE_LEVELS.get((row.trec_edition, row.track, task), 1),
            "urls": urls,
        }
    return dict(sorted(manifest.items()))


HEADER = """\
# The reanalysis study's track manifest: every TREC track of the study (1993-2021: those the ASL
# paper's stated criteria keep and the catalog's analysis candidates) with its
# qrels URL(s), run tags, input URLs and md5 sums (where the catalog has one).
# GENERATED from ../shared/catalog by `python -m reeval.archive.manifest` (src/reeval/archive/manifest.py
# says how qrels were chosen); tests/archive/test_manifest.py checks it against the catalog.
# Add a track by hand as one more entry: `urls:` (qrels + runs) or a local folder
# (`qrels:` + `runs:`), see docs/trec-archive.md.
"""


def write_manifest(manifest: dict, path) -> None:
    """Write the manifest as YAML (runs one per line, flow style, never wrapped)."""
    class Dumper(yaml.SafeDumper):
        pass

    def represent_dict(dumper, data):
        flow = "run" in data and "url" in data or list(data) in (["url"], ["url", "label"])
        return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=flow)

    Dumper.add_representer(dict, represent_dict)
    text = yaml.dump({"tracks": manifest}, Dumper=Dumper, sort_keys=False, width=10_000,
                     default_flow_style=False)
    Path(path).write_text(HEADER + text)


def main(argv=None) -> None:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default="../shared/catalog")
    parser.add_argument("--out", default="config/trec-manifest.yaml")
    args = parser.parse_args(argv)
    manifest = build_manifest(args.catalog)
    write_manifest(manifest, args.out)
    n_runs = sum(len(e["urls"]["runs"]) for e in manifest.values())
    print(f"{args.out}: {len(manifest)} tracks, {n_runs} runs")


if __name__ == "__main__":
    main()
