"""The downloader against a real HTTP server on 127.0.0.1 with injected faults."""

import bz2
import gzip
import hashlib
import logging
import os

import pytest

from faultserver import FaultServer
from reeval.archive.fetch import (CREDENTIALS_HELP, AuthError, FetchError, FileSpec, credentials, download,
                          fetch_files, make_session, mirror_path, report_frame)
from reeval.workflow.config_check import section_with_defaults

MIN_RUNS = section_with_defaults("study")["min_runs"]  # the study's default

BODY = b"".join(b"%d Q0 DOC-%06d %d %.4f run1\n" % (q, d, d, 1 / (d + 1)) for q in range(3) for d in range(4000))
MD5 = hashlib.md5(BODY).hexdigest()
PATH = "/results/trec9/input.run1.gz"


@pytest.fixture
def archive(tmp_path):
    root = tmp_path / "site"
    (root / "results" / "trec9").mkdir(parents=True)
    (root / PATH.lstrip("/")).write_bytes(BODY)
    return root


@pytest.fixture
def server(archive):
    with FaultServer(archive) as srv:
        yield srv


@pytest.fixture(autouse=True)
def no_credentials(tmp_path, monkeypatch):
    """Tests never see the user's credentials: empty HOME, no TREC_* variables."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("TREC_USER", "TREC_PASSWORD", "NETRC"):
        monkeypatch.delenv(var, raising=False)
    return home


def get(server, dest, md5=MD5, attempts=4, timeout=None, auth=None, path=PATH, **kwargs):
    """Download ``path``. No timeout unless a test stalls the server: a timeout that could
    fire on a loaded machine would make the counts of tries depend on scheduling."""
    return download(make_session(attempts=attempts, backoff=0), server.url + path, dest, md5=md5,
                    attempts=attempts, timeout=timeout, backoff=0, auth=auth, **kwargs)


def final_files(folder):
    """Files under their final names (not .part / lock files; not the server's site)."""
    return sorted(p.name for p in folder.rglob("*") if p.is_file() and not p.name.endswith(".part")
                  and not p.name.endswith(".lock") and "site" not in p.relative_to(folder).parts)


def test_plain_download_is_verified_and_identified(server, tmp_path):
    dest = tmp_path / "out" / "input.run1.gz"
    res = get(server, dest)
    assert dest.read_bytes() == BODY
    assert (res.outcome, res.bytes, res.md5, res.attempts) == ("downloaded", len(BODY), MD5, 1)
    assert server.requests[0][2].startswith("reeval/") and "TREC" in server.requests[0][2]
    # already downloaded and verified: not fetched again
    again = get(server, dest)
    assert again.outcome == "cached" and len(server.requests) == 1


@pytest.mark.parametrize("faults", [[500, 503], [503]])
def test_server_errors_then_success(server, tmp_path, faults):
    server.faults[PATH] = list(faults)
    dest = tmp_path / "f"
    res = get(server, dest)
    assert dest.read_bytes() == BODY and res.attempts == len(faults) + 1


def test_server_errors_that_persist_fail_without_a_file(server, tmp_path):
    server.faults[PATH] = [503] * 10
    with pytest.raises(FetchError, match="HTTP 503") as err:
        get(server, tmp_path / "f", attempts=3)
    assert err.value.attempts == 3 and final_files(tmp_path) == []


@pytest.mark.parametrize("ranges", [True, False])
@pytest.mark.parametrize("fault", ["truncate", "drop"])
def test_broken_bodies_resume_or_restart(archive, tmp_path, fault, ranges):
    with FaultServer(archive, ranges=ranges) as server:
        server.faults[PATH] = [fault]
        dest = tmp_path / "out" / "f"
        res = get(server, dest)
        assert dest.read_bytes() == BODY and res.outcome == "downloaded" and res.attempts == 2
        # the second try asks for the rest; a server without Range support answers 200
        # with the whole file, which replaces the partial one (the body check above)
        second_range = server.requests[1][1]
        assert second_range is not None and int(second_range[6:-1]) > 0
        assert final_files(tmp_path / "out") == ["f"]


@pytest.mark.parametrize("ranges", [True, False])
def test_a_stalled_body_is_abandoned_and_the_next_try_resumes(archive, tmp_path, ranges):
    """The stall lasts until the client gives up, so the read timeout fires whenever the
    client runs; the next download (no timeout: nothing else can time out) resumes from
    what had arrived by then, or starts over if nothing had."""
    with FaultServer(archive, ranges=ranges) as server:
        server.faults[PATH] = ["stall"]
        dest = tmp_path / "out" / "f"
        with pytest.raises(FetchError, match="failed after 1 tries: .*[Tt]ime") as err:
            get(server, dest, attempts=1, timeout=0.2)
        assert err.value.attempts == 1 and not dest.exists()
        server.wait_for_requests(1)  # the stall went to that request, not to the next one
        part = dest.with_name("f.part")
        have = part.stat().st_size if part.exists() else 0
        assert have <= len(BODY) // 2
        res = get(server, dest)
        assert dest.read_bytes() == BODY and res.outcome == "downloaded" and res.attempts == 1
        assert len(server.requests) == 2 and server.requests[1][1] == (f"bytes={have}-" if have else None)
        assert final_files(tmp_path / "out") == ["f"]


@pytest.mark.parametrize("faults", [["truncate"] * 5, ["drop"] * 5, ["stall"] * 5,
                                    ["hang", "stall", "stall", "stall"]],
                         ids=["truncate", "drop", "stall", "hang-then-stall"])
def test_broken_bodies_every_time_fail_without_a_final_file(archive, tmp_path, faults):
    """Each try is one request, counted once, whether the timeout fires before the answer
    (``hang``; also what a loaded machine does to a slow ``stall``) or during the body:
    urllib3 does not retry reads behind the download loop's back."""
    with FaultServer(archive, ranges=False) as server:
        server.faults[PATH] = list(faults)
        with pytest.raises(FetchError, match="failed after 3 tries") as err:
            get(server, tmp_path / "out" / "f", attempts=3, timeout=0.2)
        assert err.value.attempts == 3
        assert final_files(tmp_path / "out") == []


def test_strict_md5_retries_a_wrong_md5_then_fails_showing_both_sums(server, tmp_path):
    server.faults[PATH] = ["corrupt"]
    res = get(server, tmp_path / "f", strict_md5=True)
    assert res.attempts == 2 and (tmp_path / "f").read_bytes() == BODY
    server.faults[PATH] = ["corrupt"] * 5
    bad = hashlib.md5(BODY[:10] + bytes(b ^ 0x55 for b in BODY[10:])).hexdigest()
    with pytest.raises(FetchError) as err:
        get(server, tmp_path / "g", attempts=3, strict_md5=True)
    assert MD5 in str(err.value) and bad in str(err.value) and "md5 mismatch" in str(err.value)
    assert not (tmp_path / "g").exists() and not (tmp_path / "g.part").exists()


def test_content_length_is_checked_without_md5(server, tmp_path):
    server.faults[PATH] = ["truncate"] * 5
    with pytest.raises(FetchError, match="size|IncompleteRead|Protocol|Connection"):
        get(server, tmp_path / "f", md5=None, attempts=2)
    assert not (tmp_path / "f").exists()


def test_404_fails_at_once(server, tmp_path):
    with pytest.raises(FetchError, match="404") as err:
        download(make_session(backoff=0), server.url + "/nope.gz", tmp_path / "n", backoff=0)
    assert err.value.attempts == 1 and not (tmp_path / "n").exists()


def test_401_stops_with_a_message_on_credentials(server, tmp_path):
    server.auth = ("alice", "s3cret")
    with pytest.raises(AuthError) as err:
        get(server, tmp_path / "f")
    msg = str(err.value)
    assert "401" in msg and "TREC_USER" in msg and "TREC_PASSWORD" in msg and ".netrc" in msg
    assert "s3cret" not in msg and len(server.requests) == 1
    assert not (tmp_path / "f").exists()
    server.faults[PATH] = [403]
    server.auth = None
    with pytest.raises(AuthError, match="403"):
        get(server, tmp_path / "f")


#: a name that never resolves (RFC 2606 reserves .invalid)
UNRESOLVABLE = "http://reeval-archive.invalid"


@pytest.fixture
def lookups(monkeypatch):
    """Name lookups made (the real resolver answers them), and the waits between tries."""
    import socket
    import time

    made = {"lookups": [], "sleeps": []}
    real = socket.getaddrinfo

    def counted(host, *args, **kwargs):
        made["lookups"].append(host)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counted)
    monkeypatch.setattr(time, "sleep", lambda s: made["sleeps"].append(s))
    return made


def test_a_name_that_does_not_resolve_fails_at_once_saying_what_to_do(tmp_path, lookups):
    from reeval.archive.fetch import UnreachableError

    with pytest.raises(UnreachableError) as err:
        download(make_session(attempts=5, backoff=30), UNRESOLVABLE + PATH, tmp_path / "f", attempts=5, backoff=30)
    msg = str(err.value)
    assert msg.startswith("cannot reach reeval-archive.invalid: its name does not resolve") and "\n" not in msg
    assert "network" in msg and "fetch.mirror" in msg
    assert err.value.attempts == 1 and lookups["lookups"] == ["reeval-archive.invalid"] and not lookups["sleeps"]
    assert final_files(tmp_path) == []


def test_a_host_that_refuses_connections_fails_at_once(archive, tmp_path, lookups):
    from reeval.archive.fetch import UnreachableError

    with FaultServer(archive) as server:
        url = server.url + PATH
    # the server is stopped: its port refuses connections
    with pytest.raises(UnreachableError, match="cannot reach 127.0.0.1: it refuses connections") as err:
        download(make_session(attempts=5, backoff=30), url, tmp_path / "f", attempts=5, backoff=30)
    assert err.value.attempts == 1 and not lookups["sleeps"] and len(lookups["lookups"]) == 1


def test_an_unreachable_host_skips_the_rest_of_its_files_not_other_hosts(archive, tmp_path, lookups):
    specs = make_track(archive)
    with FaultServer(archive) as server:
        # qrels and r0 on the archive; the other runs on a host that does not resolve
        specs = with_base(specs[:2], server.url) + with_base(specs[2:], UNRESOLVABLE)
        results = report_frame(fetch_files(specs, tmp_path / "data", jobs=1, attempts=5, backoff=30))
    assert list(results.outcome) == ["downloaded", "downloaded", "unreachable"] + ["skipped"] * 4
    assert results.error[2].startswith("cannot reach reeval-archive.invalid") and len(set(results.error[2:])) == 1
    assert lookups["lookups"].count("reeval-archive.invalid") == 1 and not lookups["sleeps"]


def test_a_track_whose_archive_cannot_be_reached_is_left_out_with_one_reason(archive, tmp_path, lookups):
    from reeval.archive.inclusion import fetch_track

    entry = served_track(archive, UNRESOLVABLE)
    fetch = section_with_defaults("fetch", {"backoff": 30})
    status, report, _ = fetch_track("t", entry, tmp_path / "data", fetch, MIN_RUNS)
    assert not status["usable"] and "\n" not in status["reason"]
    assert status["reason"].startswith("qrels not fetched: cannot reach reeval-archive.invalid: its name does not "
                                       "resolve") and "fetch.mirror" in status["reason"]
    assert sorted(set(report.outcome)) == ["skipped", "unreachable"] and (report.outcome == "unreachable").sum() <= 4
    assert not lookups["sleeps"]


def test_credentials_from_environment_and_netrc(server, tmp_path, monkeypatch, no_credentials):
    server.auth = ("alice", "s3cret")
    url = server.url + PATH
    assert credentials(url, auth_hosts=["127.0.0.1"]) is None
    # environment variables: only sent to the auth hosts
    monkeypatch.setenv("TREC_USER", "alice")
    monkeypatch.setenv("TREC_PASSWORD", "s3cret")
    assert credentials(url, auth_hosts=["trec.nist.gov"]) is None
    assert credentials(url, auth_hosts=["127.0.0.1"]) == ("alice", "s3cret")
    res = get(server, tmp_path / "a", auth=credentials(url, auth_hosts=["127.0.0.1"]))
    assert res.outcome == "downloaded"
    monkeypatch.delenv("TREC_USER")
    monkeypatch.delenv("TREC_PASSWORD")
    # ~/.netrc of the (temporary) home, then a file named by $NETRC
    netrc = no_credentials / ".netrc"
    netrc.write_text("machine 127.0.0.1 login alice password s3cret\n")
    netrc.chmod(0o600)
    assert credentials(url) == ("alice", "s3cret")
    other = tmp_path / "other-netrc"
    other.write_text("machine 127.0.0.1 login bob password pw2\n")
    other.chmod(0o600)
    monkeypatch.setenv("NETRC", str(other))
    assert credentials(url) == ("bob", "pw2")


def make_track(archive, n=6):
    specs = [FileSpec("qrels", "qrels", "PLACEHOLDER/data/qrels.txt")]
    (archive / "data").mkdir(exist_ok=True)
    (archive / "data" / "qrels.txt").write_bytes(b"1 0 DOC-000001 1\n")
    for i in range(n):
        body = BODY + b"%d" % i
        (archive / "results" / "trec9" / f"input.r{i}.gz").write_bytes(body)
        specs.append(FileSpec(f"r{i}", "run", f"PLACEHOLDER/results/trec9/input.r{i}.gz",
                              md5=hashlib.md5(body).hexdigest()))
    return specs


def with_base(specs, base):
    return [FileSpec(s.name, s.kind, s.url.replace("PLACEHOLDER", base), s.md5) for s in specs]


def test_a_track_fetch_isolates_failures_and_bounds_concurrency(archive, tmp_path):
    specs = make_track(archive)
    with FaultServer(archive) as server:
        specs = with_base(specs, server.url)
        (archive / "results" / "trec9" / "input.r3.gz").unlink()  # 404
        server.faults["/results/trec9/input.r4.gz"] = [503, "drop"]
        results = fetch_files(specs, tmp_path / "data", jobs=2, backoff=0, timeout=None)
        # true in every interleaving: two workers, and the server counts a request done before
        # its client can see the answer end (the "drop" reset comes after that too)
        assert server.max_active <= 2
    report = report_frame(results)
    assert list(report.file) == ["qrels", "r0", "r1", "r2", "r3", "r4", "r5"]
    assert list(report.outcome) == ["downloaded"] * 4 + ["failed", "downloaded", "downloaded"]
    assert "404" in report.error[4] and report.attempts[5] == 3
    assert (tmp_path / "data" / "archive" / "127.0.0.1" / "results" / "trec9" / "input.r0.gz").is_file()
    assert not (tmp_path / "data" / "archive" / "127.0.0.1" / "results" / "trec9" / "input.r3.gz").exists()


def test_a_401_skips_the_rest_of_the_track(archive, tmp_path):
    specs = make_track(archive)
    with FaultServer(archive) as server:
        server.auth = ("alice", "s3cret")
        results = fetch_files(with_base(specs, server.url), tmp_path / "data", jobs=1, backoff=0)
        assert len(server.requests) == 1
    report = report_frame(results)
    assert report.outcome[0] == "unauthorized" and set(report.outcome[1:]) == {"skipped"}
    assert all("TREC_USER" in e for e in report.error)
    assert final_files(tmp_path) == []


def test_mirror_replaces_the_web(archive, tmp_path):
    specs = with_base(make_track(archive), "https://trec.nist.gov")
    specs[2].md5 = "0" * 32
    (archive / "results" / "trec9" / "input.r5.gz").unlink()
    results = report_frame(fetch_files(specs, tmp_path / "data", mirror=archive))
    assert list(results.outcome) == ["mirror"] * 6 + ["failed"]
    assert list(results.md5_match.fillna("-")) == ["-", "file", "mismatch", "file", "file", "file", "-"]
    assert "not in the mirror" in results.error[6]
    assert results.path[1] == str(archive / "results" / "trec9" / "input.r0.gz")
    strict = report_frame(fetch_files(specs, tmp_path / "data", mirror=archive, strict_md5=True))
    assert list(strict.outcome) == ["mirror", "mirror", "failed", "mirror", "mirror", "mirror", "failed"]
    assert "md5 mismatch" in strict.error[2] and "0" * 32 in strict.error[2]
    assert not (tmp_path / "data").exists()
    # the <mirror>/<host>/<path> layout too
    hosted = tmp_path / "hosted" / "trec.nist.gov"
    hosted.parent.mkdir()
    os.symlink(archive, hosted)
    assert mirror_path(tmp_path / "hosted", specs[1].url) == hosted / "results" / "trec9" / "input.r0.gz"


def test_help_message_names_both_ways():
    msg = CREDENTIALS_HELP.format(url="u", status=401, host="trec.nist.gov")
    assert "TREC_USER" in msg and "machine trec.nist.gov login" in msg and "never read from the config" in msg


def test_md5_of_the_submitted_content_matches_a_compressed_file(archive, tmp_path):
    """The catalog's md5 is the submitted file's: a .gz the archive serves matches by content."""
    packed = gzip.compress(BODY)
    (archive / "results" / "trec9" / "input.gzrun.gz").write_bytes(packed)
    with FaultServer(archive) as server:
        url = server.url + "/results/trec9/input.gzrun.gz"
        res = download(make_session(backoff=0), url, tmp_path / "out" / "g.gz", md5=MD5, backoff=0)
        assert (res.md5_match, res.md5) == ("content", hashlib.md5(packed).hexdigest())
        assert res.attempts == 1
        exact = download(make_session(backoff=0), url, tmp_path / "out" / "h.gz",
                         md5=hashlib.md5(packed).hexdigest(), backoff=0)
        assert exact.md5_match == "file"
        # neither the bytes nor the content, with strict_md5: the error shows every sum
        with pytest.raises(FetchError) as err:
            download(make_session(backoff=0), url, tmp_path / "out" / "i.gz", md5="f" * 32, attempts=2, backoff=0,
                     strict_md5=True)
        assert hashlib.md5(packed).hexdigest() in str(err.value) and MD5 in str(err.value)
        assert not (tmp_path / "out" / "i.gz").exists()


def test_a_complete_file_whose_md5_differs_from_the_catalog_is_kept_and_reported(archive, tmp_path):
    """The default: copies of the archive rarely have the catalog's md5 (the sum of the
    submitted file); a complete one is kept, md5_match says mismatch. strict_md5 rejects it."""
    packed = gzip.compress(BODY)
    (archive / "results" / "trec9" / "input.copy.gz").write_bytes(packed)
    path, wrong = "/results/trec9/input.copy.gz", hashlib.md5(BODY + b"\n").hexdigest()
    with FaultServer(archive) as server:
        res = get(server, tmp_path / "f.gz", md5=wrong, path=path)
        assert (res.outcome, res.md5_match, res.md5, res.attempts) == \
            ("downloaded", "mismatch", hashlib.md5(packed).hexdigest(), 1)
        assert (tmp_path / "f.gz").read_bytes() == packed
        again = get(server, tmp_path / "f.gz", md5=wrong, path=path)
        assert (again.outcome, again.md5_match) == ("cached", "mismatch") and len(server.requests) == 1
        with pytest.raises(FetchError, match="md5 mismatch") as err:
            get(server, tmp_path / "g.gz", md5=wrong, path=path, attempts=2, strict_md5=True)
        assert wrong in str(err.value) and err.value.attempts == 2
        assert final_files(tmp_path) == ["f.gz"]


def packed_body(kind: str) -> bytes:
    return {"gzip": gzip.compress, "bzip2": bz2.compress}[kind](BODY)


@pytest.mark.parametrize("md5", ["none", "wrong"])
@pytest.mark.parametrize("fault", ["short", "corrupt"])
@pytest.mark.parametrize("kind", ["gzip", "bzip2"])
def test_an_incomplete_or_corrupt_compressed_download_is_retried_whatever_the_md5(archive, tmp_path, kind,
                                                                                  fault, md5):
    """A gzip/bzip2 stream that is cut short (with a Content-Length that agrees) or corrupt is
    discarded and fetched again although md5 verification is lenient: completeness never
    relies on the md5."""
    packed = packed_body(kind)
    (archive / "results" / "trec9" / "input.z").write_bytes(packed)
    expected = None if md5 == "none" else hashlib.md5(BODY + b"\n").hexdigest()
    with FaultServer(archive) as server:
        server.faults["/results/trec9/input.z"] = [fault]
        res = get(server, tmp_path / "f", md5=expected, path="/results/trec9/input.z", strict_md5=False)
        assert (tmp_path / "f").read_bytes() == packed and res.outcome == "downloaded" and res.attempts == 2
        assert res.md5_match == (None if md5 == "none" else "mismatch")
        server.faults["/results/trec9/input.z"] = [fault] * 3
        with pytest.raises(FetchError, match="failed after 3 tries: incomplete or corrupt compressed file"):
            get(server, tmp_path / "g", md5=expected, path="/results/trec9/input.z", attempts=3)
    assert final_files(tmp_path) == ["f"] and not (tmp_path / "g.part").exists()


def test_a_broken_compressed_file_is_not_taken_from_the_cache_or_the_mirror(archive, tmp_path):
    packed = gzip.compress(BODY)
    (archive / "results" / "trec9" / "input.copy.gz").write_bytes(packed)
    dest = tmp_path / "f.gz"
    dest.write_bytes(packed[:-20])  # left by something that did not check the stream
    with FaultServer(archive) as server:
        res = get(server, dest, md5=None, path="/results/trec9/input.copy.gz")
    assert res.outcome == "downloaded" and dest.read_bytes() == packed
    (archive / "results" / "trec9" / "input.copy.gz").write_bytes(packed[: len(packed) // 2])
    spec = FileSpec("copy", "run", "https://trec.nist.gov/results/trec9/input.copy.gz")
    [row] = fetch_files([spec], tmp_path / "data", mirror=archive)
    assert row.outcome == "failed" and "incomplete or corrupt compressed file" in row.error


def test_a_partial_download_resumes_in_a_later_run(server, tmp_path):
    dest = tmp_path / "out" / "f"
    server.faults[PATH] = ["truncate"] * 2
    with pytest.raises(FetchError):
        get(server, dest, attempts=2)
    part = dest.with_name("f.part")
    assert not dest.exists() and 0 < part.stat().st_size < len(BODY)
    have = part.stat().st_size
    res = get(server, dest)  # the server is healthy again
    assert dest.read_bytes() == BODY and res.attempts == 1
    assert server.requests[-1][1] == f"bytes={have}-" and not part.exists()


# --- a track through fetch_track: copies whose md5 differs from the catalog's ---------------

def served_track(archive, base, n=6):
    """A track of gzipped runs whose manifest md5s, like the catalog's, are those of the
    submitted files (one byte more), not of the copies served."""
    (archive / "data").mkdir(exist_ok=True)
    (archive / "data" / "qrels.txt").write_bytes(b"".join(b"1 0 DOC-%06d %d\n" % (d, d % 2) for d in range(20)))
    runs = []
    for i in range(n):
        body = b"".join(b"1 Q0 DOC-%06d %d %d r%d\n" % (d, d + 1, 100 - d, i) for d in range(20))
        (archive / "results" / "trec9" / f"input.r{i}.gz").write_bytes(gzip.compress(body))
        runs.append({"run": f"r{i}", "url": f"{base}/results/trec9/input.r{i}.gz",
                     "md5": hashlib.md5(body + b"\n").hexdigest()})
    return {"urls": {"qrels": [{"url": f"{base}/data/qrels.txt"}], "runs": runs}}


def test_a_served_track_whose_copies_differ_from_the_catalog_is_included(archive, tmp_path, caplog):
    from reeval.archive.inclusion import fetch_track
    log = logging.getLogger("reeval-test-fetch")
    with FaultServer(archive) as server:
        entry = served_track(archive, server.url)
        server.faults["/results/trec9/input.r1.gz"] = ["corrupt"]  # md5 cannot tell: the stream does
        fetch = section_with_defaults("fetch", {"backoff": 0, "timeout": None})
        with caplog.at_level(logging.INFO, logger=log.name):
            status, report, folder = fetch_track("t", entry, tmp_path / "data", fetch, MIN_RUNS, log=log)
        assert (status["usable"], status["runs_fetched"], status["runs_parsed"]) == (True, 6, 6)
        assert status["files_md5_mismatch"] == 6
        runs = report[report.kind == "run"].set_index("file")
        assert set(runs.md5_match) == {"mismatch"} and set(runs.use) == {"ok"}
        assert runs.attempts.to_dict() == {f"r{i}": 2 if i == 1 else 1 for i in range(6)}
        assert sorted(p.name for p in (folder / "runs").iterdir()) == [f"r{i}" for i in range(6)]
        for i in range(6):
            assert f"r{i} kept with md5_match mismatch" in caplog.text
        # strict md5 verification, as an option: the same copies leave the track out
        strict, report, _ = fetch_track("t", entry, tmp_path / "strict", dict(fetch, strict_md5=True, attempts=1),
                                      MIN_RUNS)
    assert not strict["usable"] and strict["reason"].startswith("0 usable runs of 6 listed")
    assert set(report[report.kind == "run"].outcome) == {"failed"}


@pytest.mark.parametrize("track, shared, fetched, content_matches", [
    ("trec2020-deep-passages", "trec2020-dl-passage", 12, 0),
    ("trec-covid-round1", "trec-covid-round1", 143, 4),
])
def test_real_copies_that_differ_from_the_catalog_are_kept(tmp_path, track, shared, fetched, content_matches):
    """The runs in ../shared/data laid out as the archive serves them, with the manifest's
    (the catalog's) md5s: none of the DL-2020 passage copies and 4 of the 143 TREC-COVID
    round 1 runs match it, and every copy is used."""
    from urllib.parse import urlsplit

    from conftest import ROOT, track_files
    from reeval.archive.inclusion import fetch_track
    from reeval.workflow.tracks import load_manifest
    qrels, runs = track_files(shared)
    entry = load_manifest(ROOT / "config" / "trec-manifest.yaml")[track]
    mirror = tmp_path / "mirror"

    def place(url, src):
        dest = mirror / urlsplit(url).path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(src, dest)

    place(entry["urls"]["qrels"][0]["url"], qrels)
    for item in entry["urls"]["runs"]:
        name = os.path.basename(urlsplit(item["url"]).path)  # input.<run>.gz, or <run> (served plain)
        src = [p for p in runs if os.path.basename(p).endswith(name if name.endswith(".gz") else name + ".gz")]
        if src:
            place(item["url"], src[0])
    status, report, _ = fetch_track(track, entry, tmp_path / "data",
                                    section_with_defaults("fetch", {"mirror": str(mirror)}), MIN_RUNS)
    assert (status["usable"], status["runs_fetched"], status["runs_parsed"]) == (True, fetched, fetched)
    used = report[(report.kind == "run") & (report.outcome == "mirror")]
    assert set(used.use) == {"ok"}
    assert used.md5_match.value_counts().to_dict() == {"mismatch": fetched - content_matches,
                                                       **({"content": content_matches} if content_matches else {})}


def test_a_track_s_alternative_qrels_are_fetched_beside_it_and_one_missing_leaves_it_usable(archive, tmp_path):
    """The manifest's ``alternative_qrels`` are fetched into ``alternative_qrels/<i>/<name>`` in
    their order (the audit's last causes); one that cannot be fetched is said in the report's
    ``use`` and the track stays usable."""
    from reeval.archive.inclusion import fetch_track, fetched_alternatives

    with FaultServer(archive) as server:
        entry = served_track(archive, server.url)
        (archive / "data" / "qrels.cumulative.txt").write_bytes(b"1 0 DOC-000001 1\n1 0 DOC-000002 1\n")
        entry["urls"]["alternative_qrels"] = [
            {"url": f"{server.url}/data/absent.txt", "label": "gone"},
            {"url": f"{server.url}/data/qrels.cumulative.txt", "label": "Cumulative qrels"}]
        fetch = section_with_defaults("fetch", {"backoff": 0, "timeout": None, "attempts": 1})
        status, report, folder = fetch_track("t", entry, tmp_path / "data", fetch, MIN_RUNS)
    assert status["usable"] and status["runs_parsed"] == 6
    assert fetched_alternatives(folder) == [str(folder / "alternative_qrels" / "2" / "qrels.cumulative.txt")]
    assert (folder / "alternative_qrels" / "2" / "qrels.cumulative.txt").read_bytes().startswith(b"1 0 DOC-000001 1")
    alt = report[report.kind == "alternative qrels"].set_index("file")["use"]
    assert alt["alternative-qrels-2"] == "ok" and alt["alternative-qrels-1"].startswith("failed")
