"""Downloading a track's files: verified, resumable, authenticated, with retries.

One file (:func:`download`):

- ``requests`` with a urllib3 ``Retry`` (backoff) for connection errors and 5xx answers;
  a failure once the request is sent (read timeout before or during the body: a stalled
  response; connection dropped; fewer bytes than ``Content-Length``) is retried here, not
  by urllib3 (its ``read`` retries are off), so each such try is one request, counted
  once; a retry resumes with ``Range: bytes=<have>-`` when the server answers 206 and
  restarts when it answers 200.
- The body is written to ``<name>.part`` (the raw bytes served: no transparent
  ``Content-Encoding`` decoding) and renamed to ``<name>`` only when it is complete: its
  size matches ``Content-Length`` / ``Content-Range`` and, for a gzip, bzip2 or Unix
  compress file, the whole stream decompresses (gzip and bzip2 end with an end-of-stream
  marker and a CRC; a ``.Z`` file has neither, so only its size and a decoding error can
  tell). An incomplete or corrupt file is discarded and retried, whatever the md5 policy.
- md5 (:mod:`reeval.archive.checks`): the catalog's sum is the one recorded at submission, so a file the archive serves
  compressed matches when either its bytes or its decompressed content have that md5
  (``md5_match`` says ``file`` or ``content``); public copies of the archive rarely match
  either, so by default a complete file whose md5 differs is kept and reported
  (``md5_match = mismatch``). ``strict_md5=True`` rejects it instead (the part is
  discarded and retried; the last error shows the sums).
- A file already present under its final name (complete, and matching its md5 with
  ``strict_md5``) is not fetched again (outcome ``cached``); a broken one is fetched again.
- 401/403 raise :class:`AuthError` at once, with :data:`CREDENTIALS_HELP`; 404 fails the
  file at once (no retry).
- A host that cannot be reached at all (:func:`unreachable`: its name does not resolve, it
  refuses the connection, no route to it) raises :class:`UnreachableError` at once, with
  :data:`UNREACHABLE_HELP`: no retry and no backoff, since another try in a second meets
  the same network. Connect and read timeouts, dropped connections and 5xx answers are
  transient and keep their retries.

Credentials (:func:`credentials`): ``TREC_USER`` / ``TREC_PASSWORD`` from the environment
(sent only to ``auth_hosts``, default ``trec.nist.gov``), else ``~/.netrc`` (or the file
named by ``$NETRC``) for the URL's host. Never from the config, never logged.

Offline (:func:`mirror_path`): a local folder with the archive's path layout
(``<mirror>/<host>/<path>`` or ``<mirror>/<path>``) replaces the web; ``file://`` URLs
are read in place. Mirror files are checked as downloads are (a complete stream; the md5,
rejected on a mismatch only with ``strict_md5``), and a failed check fails the file.

A track (:func:`fetch_files`): a bounded number of concurrent downloads, a tqdm progress
bar (files, bytes), and one report row per file: file, url, path, bytes, md5, expected
md5, md5_match, outcome (``downloaded``, ``cached``, ``mirror``, ``failed``, ``unauthorized``, ``skipped``
after an ``unauthorized``; ``unreachable``, then ``skipped`` for the other files of that host),
attempts
(HTTP requests made, retries included) and the error.
"""

from __future__ import annotations

import errno
import fcntl
import netrc
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from tqdm import tqdm
from urllib3.util.retry import Retry

from reeval import __version__

from .checks import FileCheck, check_file

USER_AGENT = (f"reeval/{__version__} (reanalysis of TREC evaluation campaigns; "
              f"python-requests/{requests.__version__})")
DEFAULT_AUTH_HOSTS = ("trec.nist.gov",)
CHUNK = 1 << 16

CREDENTIALS_HELP = (
    "{url} answered HTTP {status}: this part of the TREC archive needs the TREC archive "
    "username and password. Provide them as environment variables TREC_USER and "
    "TREC_PASSWORD (e.g. `export TREC_USER=...; export TREC_PASSWORD=...` before running "
    "snakemake), or as the line `machine {host} login <user> password <password>` in "
    "~/.netrc (or the file named by $NETRC; chmod 600). They are never read from the "
    "config file. Then rerun: the files already verified are not fetched again.")

UNREACHABLE_HELP = (
    "cannot reach {host}: {why}. Check this machine's network (DNS, firewall, a proxy in "
    "HTTPS_PROXY), or set fetch.mirror to a local copy of the archive (docs/trec-archive.md); "
    "then rerun with --forcerun fetch (files already verified are not fetched again)")


class FetchError(Exception):
    """A file could not be fetched (the message says why)."""

    def __init__(self, message: str, attempts: int = 0):
        super().__init__(message)
        self.attempts = attempts


class AuthError(FetchError):
    """HTTP 401/403: credentials missing or refused."""


class UnreachableError(FetchError):
    """The host cannot be reached at all (:func:`unreachable`); the message says what to do."""


def unreachable(error: BaseException) -> str | None:
    """Why a connection error says the host cannot be reached at all, or None when it is
    worth another try.

    Not worth it: the name does not resolve (urllib3's ``NameResolutionError``), the host
    refuses the connection (``ECONNREFUSED``), or no route leads to it (``ENETUNREACH``,
    ``EHOSTUNREACH``). A connect timeout, a dropped connection or an HTTP error is none of
    these (None): those are retried.
    """
    if isinstance(error, urllib3.exceptions.NameResolutionError):
        return "its name does not resolve (no network, or no DNS server answering)"
    if not isinstance(error, urllib3.exceptions.NewConnectionError):
        return None
    cause = error.__cause__
    if isinstance(cause, ConnectionRefusedError):
        return "it refuses connections"
    if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return "no network route leads to it"
    return None


class _FailFastRetry(Retry):
    """urllib3's Retry, except that an error :func:`unreachable` names ends the request at
    once (``MaxRetryError``) instead of being tried again after a backoff."""

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if error is not None and unreachable(error):
            raise urllib3.exceptions.MaxRetryError(_pool, url, error)
        return super().increment(method, url, response, error, _pool, _stacktrace)


@dataclass
class FileResult:
    """One row of a fetch report."""
    file: str
    url: str
    kind: str = ""
    path: str | None = None
    bytes: int | None = None
    md5: str | None = None
    expected_md5: str | None = None
    md5_match: str | None = None
    outcome: str = "failed"
    attempts: int = 0
    error: str | None = None


@dataclass
class FileSpec:
    """A file to fetch: ``name`` (run tag or qrels label), ``kind`` (qrels or run)."""
    name: str
    kind: str
    url: str
    md5: str | None = None


def credentials(url: str, auth_hosts=DEFAULT_AUTH_HOSTS, env=None) -> tuple[str, str] | None:
    """(user, password) for ``url``: environment (for ``auth_hosts``), else netrc, else None."""
    env = os.environ if env is None else env
    host = urlsplit(url).hostname or ""
    if env.get("TREC_USER") and env.get("TREC_PASSWORD") and host in set(auth_hosts):
        return env["TREC_USER"], env["TREC_PASSWORD"]
    path = Path(env["NETRC"]) if env.get("NETRC") else Path(env.get("HOME") or Path.home()) / ".netrc"
    if path.is_file():
        try:
            entry = netrc.netrc(str(path)).authenticators(host)
        except (netrc.NetrcParseError, OSError) as exc:
            raise FetchError(f"cannot read credentials file {path}: {exc.__class__.__name__}") from None
        if entry and entry[2] is not None:
            return entry[0], entry[2]
    return None


def make_session(attempts: int = 5, backoff: float = 1.0, user_agent: str = USER_AGENT) -> requests.Session:
    """A session that retries connection errors and 5xx answers (urllib3 Retry, backoff),
    except a host that cannot be reached at all (:func:`unreachable`), failed at once.

    Read errors (a timeout or a dropped connection once the request is sent) are not
    retried by urllib3 (``read=False``): :func:`download` retries them itself, one request
    per try, so the requests it reports are the requests made, whatever times out where.
    """
    retry = _FailFastRetry(total=attempts - 1, connect=attempts - 1, read=False, status=attempts - 1,
                  other=0, backoff_factor=backoff, status_forcelist=(500, 502, 503, 504),
                  allowed_methods=frozenset({"GET"}), raise_on_status=False,
                  respect_retry_after_header=True)
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = user_agent
    return session


def archive_path(root, url: str) -> Path:
    """Where a URL's file is kept: ``<root>/<host>/<path>`` (the archive's layout)."""
    parts = urlsplit(url)
    rel = unquote(parts.path).lstrip("/")
    if not rel or rel.endswith("/") or ".." in Path(rel).parts:
        raise ValueError(f"{url}: not a file URL")
    return Path(root) / (parts.hostname or "localhost") / rel


def mirror_path(mirror, url: str) -> Path:
    """The mirror's copy of a URL's file: ``<mirror>/<host>/<path>`` or ``<mirror>/<path>``."""
    with_host = archive_path(mirror, url)
    without = Path(mirror) / unquote(urlsplit(url).path).lstrip("/")
    for candidate in (with_host, without):
        if candidate.is_file():
            return candidate
    raise FetchError(f"not in the mirror: looked for {with_host} and {without}")


@contextmanager
def _locked(path: Path):
    """An exclusive lock beside ``path`` (two jobs fetching the same file wait for each other)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _total_size(resp) -> int | None:
    """Full size of the file from a 200 (Content-Length) or 206 (Content-Range) answer."""
    if resp.status_code == 206:
        rng = resp.headers.get("Content-Range", "")
        total = rng.rsplit("/", 1)[-1] if "/" in rng else "*"
        return int(total) if total.isdigit() else None
    length = resp.headers.get("Content-Length")
    return int(length) if length and length.isdigit() else None


class _Retry(Exception):
    """This try failed in a way another try may mend (the message says how)."""


def _from_cache(dest: Path, md5, strict_md5: bool, result: FileResult) -> bool:
    """Fill ``result`` from a good copy at ``dest`` and say so; remove a broken or stale one."""
    if not dest.is_file():
        return False
    check = check_file(dest, md5)
    if not check.broken and (check.match != "mismatch" or not strict_md5):
        result.bytes, result.md5, result.md5_match = dest.stat().st_size, check.md5, check.match
        result.outcome = "cached"
        return True
    dest.unlink()  # broken, or a stale copy (the manifest's md5 changed): fetch again
    return False


def _check_answer(resp, url: str, part: Path, have: int, requests_made: int) -> bool:
    """Judge an HTTP answer before its body is read: True when it resumes ``part``.

    401/403 raise :class:`AuthError`; 404, a 5xx (the session's Retry already spent its
    tries on it) and other 4xx raise :class:`FetchError`; a 416 on resume and a 206 whose
    Content-Range does not start at ``have`` drop the part and raise :class:`_Retry`.
    """
    status = resp.status_code
    if status in (401, 403):
        raise AuthError(CREDENTIALS_HELP.format(url=url, status=status, host=urlsplit(url).hostname),
                        requests_made)
    if status == 404:
        raise FetchError(f"HTTP 404 not found: {url}", requests_made)
    if status == 416 and have:
        part.unlink()
        raise _Retry("HTTP 416 on resume: restarting")
    if status >= 500:
        raise FetchError(f"HTTP {status} after {requests_made} requests: {url}", requests_made)
    if status >= 400:
        raise FetchError(f"HTTP {status}: {url}", requests_made)
    if status == 206 and not resp.headers.get("Content-Range", "").startswith(f"bytes {have}-"):
        part.unlink(missing_ok=True)
        raise _Retry(f"unexpected Content-Range {resp.headers.get('Content-Range')!r}")
    return status == 206 and have > 0


def _save_body(resp, part: Path, resumed: bool, progress) -> None:
    """Append (when resuming) or write the raw body to ``part``, reporting bytes to ``progress``."""
    with open(part, "ab" if resumed else "wb") as fh:
        for chunk in resp.raw.stream(CHUNK, decode_content=False):
            fh.write(chunk)
            if progress is not None:
                progress.update(len(chunk))


def _verified_size(part: Path, total: int | None, md5, strict_md5: bool) -> tuple[int, FileCheck]:
    """Size and check of a complete ``part``; :class:`_Retry` (part dropped unless it may
    resume) when it is short, long, broken or (``strict_md5``) of another md5."""
    got = part.stat().st_size
    if total is not None and got != total:
        if got > total:
            part.unlink()
        raise _Retry(f"size {got} bytes, expected {total} (Content-Length)")
    check = check_file(part, md5)
    if check.broken or (check.match == "mismatch" and strict_md5):
        part.unlink()  # restart: a corrupt part cannot be resumed
        raise _Retry(check.broken or check.mismatch)
    return got, check


def download(session: requests.Session, url: str, dest, md5: str | None = None, attempts: int = 5,
             timeout: float | None = 60, backoff: float = 1.0, auth=None, progress=None,
             strict_md5: bool = False) -> FileResult:
    """Fetch ``url`` to ``dest`` (see the module docstring); raises FetchError / AuthError.

    ``attempts`` bounds the tries of this loop (each may itself retry connection errors
    and 5xx answers through the session's Retry); ``timeout`` is the connect and read
    timeout in seconds (a stalled body fails after that long without data; None waits
    without limit). Between tries it waits ``backoff`` x 2^(try - 2) seconds, at most 60.
    """
    dest = Path(dest)
    result = FileResult(file=dest.name, url=url, expected_md5=md5, path=str(dest))
    with _locked(dest):
        if _from_cache(dest, md5, strict_md5, result):
            return result
        part = dest.with_name(dest.name + ".part")
        last_error, requests_made = None, 0
        for attempt in range(1, attempts + 1):
            if attempt > 1 and backoff:
                time.sleep(min(backoff * 2 ** (attempt - 2), 60))
            have = part.stat().st_size if part.exists() else 0
            answered = False
            try:
                with session.get(url, headers={"Range": f"bytes={have}-"} if have else {}, stream=True,
                                 timeout=timeout, auth=auth) as resp:
                    retries = getattr(resp.raw, "retries", None)
                    requests_made += 1 + (len(retries.history) if retries is not None else 0)
                    answered = True
                    resumed = _check_answer(resp, url, part, have, requests_made)
                    total = _total_size(resp)
                    _save_body(resp, part, resumed, progress)
                got, check = _verified_size(part, total, md5, strict_md5)
                os.replace(part, dest)
                result.bytes, result.md5, result.md5_match, result.outcome = got, check.md5, check.match, "downloaded"
                result.attempts = requests_made
                return result
            except _Retry as retry:
                last_error = str(retry)
            except FetchError:
                raise
            except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
                cause = exc.args[0] if exc.args else None
                if isinstance(cause, urllib3.exceptions.MaxRetryError) and unreachable(cause.reason):
                    host = urlsplit(url).hostname
                    raise UnreachableError(UNREACHABLE_HELP.format(host=host, why=unreachable(cause.reason)),
                                           requests_made + 1) from None
                if isinstance(cause, urllib3.exceptions.MaxRetryError):
                    # no answer at all: the session's Retry already tried `attempts` times
                    raise FetchError(f"{type(exc).__name__} after {requests_made + attempts} requests: "
                                     f"{cause.reason}", requests_made + attempts) from None
                requests_made += 0 if answered else 1
                last_error = f"{type(exc).__name__}: {exc}"
        raise FetchError(f"failed after {attempts} tries: {last_error}", requests_made)


def _from_mirror(spec: FileSpec, mirror, strict_md5: bool, res: FileResult) -> FileResult:
    """Fill ``res`` from the mirror's copy (or a ``file://`` URL's file), checked like a download."""
    path = (Path(unquote(urlsplit(spec.url).path)) if spec.url.startswith("file://")
            else mirror_path(mirror, spec.url))
    if not path.is_file():
        raise FetchError(f"no such file: {path}")
    check = check_file(path, spec.md5)
    if check.broken or (check.match == "mismatch" and strict_md5):
        raise FetchError(f"{check.broken or check.mismatch} ({path})")
    res.path, res.bytes, res.md5, res.md5_match = str(path), path.stat().st_size, check.md5, check.match
    res.outcome = "mirror"
    return res


class _Progress:
    """A tqdm bar over files whose postfix counts the megabytes downloaded (thread safe)."""

    def __init__(self, n_files: int, desc: str):
        self.bar = tqdm(total=n_files, desc=desc, unit="file", mininterval=1.0, dynamic_ncols=True)
        self.bytes = 0
        self.lock = threading.Lock()

    def update(self, n: int) -> None:
        with self.lock:
            self.bytes += n
            self.bar.set_postfix_str(f"{self.bytes / 1e6:.1f} MB", refresh=False)


def fetch_files(specs: list[FileSpec], data_dir, mirror=None, jobs: int = 4, attempts: int = 5,
                timeout: float | None = 60, backoff: float = 1.0, auth_hosts=DEFAULT_AUTH_HOSTS,
                strict_md5: bool = False, desc: str = "fetch",
                session_factory=make_session) -> list[FileResult]:
    """Fetch (or find in the mirror) every file; one :class:`FileResult` per spec, in order.

    Files land in ``<data_dir>/archive/<host>/<path>``. A failed file does not stop the
    others; a 401/403 (``unauthorized``) does: files not started yet are ``skipped`` with
    the same message. So does a host that cannot be reached (``unreachable``) for the
    files on that host. Each of the ``jobs`` threads has its own session.
    """
    local = threading.local()
    stop = threading.Event()
    stop.message = ""
    down: dict[str, str] = {}  # host -> why it cannot be reached (the first file's error)
    progress = _Progress(len(specs), desc)

    def one(spec: FileSpec) -> FileResult:
        res = FileResult(file=spec.name, url=spec.url, kind=spec.kind, expected_md5=spec.md5)
        host = urlsplit(spec.url).hostname
        if stop.is_set() or host in down:
            res.outcome, res.error = "skipped", stop.message if stop.is_set() else down[host]
            return res
        try:
            if mirror or spec.url.startswith("file://"):
                return _from_mirror(spec, mirror, strict_md5, res)
            if not hasattr(local, "session"):
                local.session = session_factory(attempts=attempts, backoff=backoff)
            got = download(local.session, spec.url, archive_path(Path(data_dir) / "archive", spec.url),
                           md5=spec.md5, attempts=attempts, timeout=timeout, backoff=backoff,
                           auth=credentials(spec.url, auth_hosts), progress=progress, strict_md5=strict_md5)
            got.file, got.kind = spec.name, spec.kind
            return got
        except AuthError as exc:
            stop.message = str(exc)
            stop.set()
            res.outcome, res.error, res.attempts = "unauthorized", str(exc), exc.attempts
        except UnreachableError as exc:
            down.setdefault(host, str(exc))
            res.outcome, res.error, res.attempts = "unreachable", str(exc), exc.attempts
        except (FetchError, ValueError) as exc:
            res.error, res.attempts = str(exc), getattr(exc, "attempts", 0)
        return res

    def counted(spec):
        try:
            return one(spec)
        finally:
            progress.bar.update(1)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(counted, specs))
    progress.bar.close()
    return results


def report_frame(results: list[FileResult]):
    """The fetch report as a DataFrame (one row per file)."""
    import pandas as pd
    cols = list(FileResult.__dataclass_fields__)
    return pd.DataFrame([asdict(r) for r in results], columns=cols)
