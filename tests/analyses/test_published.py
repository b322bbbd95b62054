"""The papers' published numbers: read from the package's data file, errors that name it."""

import pytest

from reeval.analyses.papers.published import PUBLISHED_FILE, PublishedNumbersError, published


def test_each_paper_has_its_tables():
    asl = published("asl")
    assert [row["measure"] for row in asl["table1"]] == ["P@20", "ASL@g1-10", "MAP", "ASL"]
    assert asl["table1"][3]["passages BM25"] == "264"  # cells stay as the paper prints them
    assert asl["table2"]["cumulative"] == {"delta_sort": "26-60%", "kendall": "0.6-0.9",
                                           "delta_value": "0.004-0.06x"}
    assert (asl["tracks"], asl["runs"]) == (76, 4302)
    rareness = published("rareness")
    assert list(rareness) == ["TREC-5", "TREC-8", "WT14", "DLT20"]
    for c in rareness.values():  # table 1's note: the pairs of all runs; six rows of tables 1 and 2
        assert c["pairs"] == c["runs"] * (c["runs"] - 1) // 2 and len(c["rows"]) == 6
    assert rareness["TREC-8"]["table3"]["AP_rareness"][-1] == 0.996
    assert rareness["TREC-8"]["table4"]["documents"][0] == {"docno": "FBIS3-38782", "rarity": 0.81}
    dl = rareness["DLT20"]
    assert dl["pairs"] == 2016 and dl["sampled_topics"] == 45 // 2
    assert dl["rows"][2] == {"measure": "P_rareness", "alpha": 1.0, "significant_95": 237,
                             "significant_99": 82, "stability": 0.179}


def test_loaded_once_and_shared():
    assert published("asl") is published("asl")


def test_an_unknown_paper_names_the_file_and_the_key():
    with pytest.raises(PublishedNumbersError, match=r"published\.yaml: no key 'nope' \(papers there: .*asl"):
        published("nope")


def test_another_file_of_the_same_layout(tmp_path):
    path = tmp_path / "numbers.yaml"
    path.write_text("paper: {x: 1}\n")
    assert published("paper", path) == {"x": 1}
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n")
    with pytest.raises(PublishedNumbersError, match="list.yaml: expected a mapping"):
        published("paper", bad)


def test_the_data_file_is_package_data():
    """pyproject ships published.yaml with the package (an installed reeval finds it)."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    from conftest import ROOT

    with open(ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]["reeval.analyses.papers"]
    assert PUBLISHED_FILE.name in data and PUBLISHED_FILE.parent.name == "papers"


def test_read_as_the_pure_python_loader_reads_it():
    """libyaml's loader (read by every analyses job) gives the very mapping of yaml.safe_load,
    values and their types alike, so the tables printing these numbers keep their bytes."""
    import yaml

    expected = yaml.safe_load(PUBLISHED_FILE.read_text(encoding="utf-8"))
    assert repr(published("asl", PUBLISHED_FILE)) == repr(expected["asl"])
    assert {k: repr(published(k)) for k in expected} == {k: repr(v) for k, v in expected.items()}
