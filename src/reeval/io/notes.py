"""What reading a file dropped or changed, in words, and where trec_eval would differ.

One function of an ingest report row (:func:`file_notes`); the ingest rule writes its notes
to its log. ``reeval score``, ``compare`` and ``prefer`` print on stderr one line per file
whose reading differs from trec_eval's or drops lines (a duplicate, a NaN score ...), and
sum up in one line what they read as trec_eval reads it (lines on topics without
judgments, text after the sixth field, several tags: :func:`as_trec_eval_summary`),
per file with ``--verbose``. A note is written for every line that was not kept and for
every reading that is not trec_eval's own (docs/semantics.md).
"""

from __future__ import annotations

import os


def _n(count: int, what: str, plural: str | None = None) -> str:
    """``1 line`` / ``3 lines``."""
    return f"{count} {what if count == 1 else (plural or what + 's')}"


#: the words for each line outcome that is a drop (reeval.io.trecio.LineCounts.OUTCOMES)
DROP_WORDS = {"blank": "blank", "comment": "comment", "malformed": "malformed",
              "nan_score": "with a NaN score", "unjudged_topic": "on a topic without judgments",
              "duplicate": "duplicate"}


def nothing_kept(row) -> str:
    """Why a file kept no line, in words: ``empty file`` or ``2 lines read: 2 with a NaN
    score`` (drops largest first). ``row``: an ingest report row (a dict or a pandas row)
    or a :class:`~reeval.io.trecio.LineCounts`."""
    get = (lambda k: int(getattr(row, k))) if hasattr(row, "OUTCOMES") else (lambda k: int(row[k]))
    read = get("lines_read")
    if read == 0:
        return "empty file"
    drops = sorted(((get(k), words) for k, words in DROP_WORDS.items() if get(k) > 0), key=lambda d: -d[0])
    return f"{_n(read, 'line')} read: " + ", ".join(f"{n} {words}" for n, words in drops)


#: the drops that take from a run lines it would be scored on: trec_eval refuses a run with a
#: duplicate document or a line it cannot read and scores a NaN score as a number. The other
#: drops (blank and comment lines, lines on topics without judgments) trec_eval passes over
#: too, and they change no score.
LOST = ("duplicate", "nan_score", "malformed")


def lost_lines(row) -> str | None:
    """The lines a run was scored without, by the ingest report's names, largest first:
    ``311 duplicate, 2 nan_score``; None when it lost none (:data:`LOST`). ``row``: an
    ingest report or ``run_inclusion.csv`` row (a dict or a pandas row)."""
    counts = sorted(((int(row[k]), k) for k in LOST if int(row[k]) > 0), key=lambda c: -c[0])
    return ", ".join(f"{n} {name}" for n, name in counts) or None


def file_notes(row: dict) -> list[str]:
    """Notes on one file of an ingest report (a row of ``ingest_report.csv`` as a dict)."""
    return [note for note, _ in tagged_notes(row)]


def tagged_notes(row: dict) -> list[tuple[str, bool]]:
    """(note, as_trec_eval) for each note on one file: ``as_trec_eval`` when reeval reads
    those lines as trec_eval 10 does (lines on topics without judgments, text after the
    sixth field, a '#' inside a field, comment and blank lines of a run, several tags), so the numbers are
    trec_eval's; False where they differ, something was lost, or the run's own order is
    not the one used (topics whose scores are all equal, ranked by docno, not by the rank
    column: said once per file, with the number of such topics)."""
    qrels = row.get("kind") == "qrels"
    get = lambda key: int(row.get(key) or 0)  # noqa: E731 - missing or NaN columns count 0
    notes = []
    if get("bom"):
        notes.append(("a UTF-8 byte-order mark at the start ignored (trec_eval would read it "
                      "as part of the first topic id)", False))
    if get("lone_cr"):
        notes.append((f"{_n(get('lone_cr'), 'line end')} that {'is' if get('lone_cr') == 1 else 'are'} "
                      "a lone CR read as line ends (trec_eval ends lines only at LF and would "
                      "read those lines differently)", False))
    if get("blank"):
        notes.append((f"{_n(get('blank'), 'blank line')} skipped" +
                      (" (trec_eval stops at a blank qrels line)" if qrels else ""), not qrels))
    if get("comment"):
        note = f"{_n(get('comment'), 'comment line')} skipped"
        if get("comment_as_data"):
            note += (f" (trec_eval would not skip {get('comment_as_data')} of them: in qrels it "
                     "skips only a '#' at a line's first byte, not right after another comment)")
        notes.append((note, not get("comment_as_data")))
    if get("hash_lines"):
        notes.append((f"{_n(get('hash_lines'), 'line')} with a '#' inside a field, read as data (as "
                      "trec_eval reads it: only a '#' starting a line makes a comment)", True))
    if get("extra_fields"):
        notes.append((f"{_n(get('extra_fields'), 'line')} with text after the sixth field, read without "
                      "it (as trec_eval reads it)", True))
    if get("malformed"):
        notes.append((f"{_n(get('malformed'), 'malformed line')} dropped", False))
    if get("nan_score"):
        notes.append((f"{_n(get('nan_score'), 'line')} with a NaN score dropped (trec_eval would "
                      "put NaN scores in an arbitrary place of the ranking)", False))
    if get("unjudged_topic"):
        topics = get("unjudged_topics")
        on = f" on {_n(topics, 'topic')} without judgments" if topics else " on topics without judgments"
        notes.append((f"{_n(get('unjudged_topic'), 'line')}{on} dropped (trec_eval skips those "
                      "topics too)", True))
    if get("duplicate"):
        if qrels:
            notes.append((f"{_n(get('duplicate'), 'repeated judgment')} dropped (the last one kept; "
                          "trec_eval stops with 'duplicate docs')", False))
        else:
            notes.append((f"{_n(get('duplicate'), 'duplicate line')} dropped (the first in trec_eval "
                          "order kept; trec_eval stops with 'duplicate docs')", False))
    if get("tied_topics"):
        notes.append((f"{_n(get('tied_topics'), 'topic')} whose scores are all equal: ranked by docno alone "
                      "(descending, as trec_eval does without saying so), its rank column ignored", False))
    if get("non_utf8_lines"):
        notes.append((f"{_n(get('non_utf8_lines'), 'line')} with bytes that are not UTF-8, "
                      "shown as \\xNN", False))
    if get("backslash_lines"):
        notes.append((f"{_n(get('backslash_lines'), 'line')} with a backslash, shown doubled (\\\\)", False))
    if get("n_tags") > 1:
        notes.append((f"{get('n_tags')} different tags ({tags_in_words(row.get('first_tag'), row.get('tag'))}): "
                      "runid shows the last line's, as trec_eval does", True))
    return notes


#: How the one line summing up what was read as trec_eval reads it begins
AS_TREC_EVAL = "read as trec_eval reads them: "


def as_trec_eval_summary(rows) -> str | None:
    """One line summing up, over the files of ``rows`` (ingest report rows), what was read as
    trec_eval 10 reads it (:func:`tagged_notes`), counted: ``read as trec_eval reads them:
    37 runs with lines on topics without judgments (1,204 lines, dropped); ...``; None
    when there is nothing to say. The ingest report holds the counts per file."""
    counts: dict = {}
    for row in rows:
        qrels = row.get("kind") == "qrels"
        get = lambda key, row=row: int(row.get(key) or 0)  # noqa: E731
        found = {"unjudged_topic": get("unjudged_topic"), "extra_fields": get("extra_fields"),
                 "blank": 0 if qrels else get("blank"),
                 "comment": 0 if get("comment_as_data") else get("comment"),
                 "n_tags": int(get("n_tags") > 1)}
        for key, n in found.items():
            if n:
                files, lines = counts.get(key, (0, 0))
                counts[key] = (files + 1, lines + n)
    words = {"unjudged_topic": "with lines on topics without judgments ({lines} dropped)",
             "extra_fields": "with text after the sixth field ({lines}, read without it)",
             "blank": "with blank lines ({lines}, skipped)", "comment": "with comment lines ({lines}, skipped)",
             "n_tags": "with several tags (runid shows the last line's)"}
    parts = [f"{_n(files, 'file')} " + words[key].format(lines=_n(lines, "line"))
             for key, (files, lines) in counts.items()]
    return AS_TREC_EVAL + "; ".join(parts) if parts else None


def tags_in_words(first: str, last: str, limit: int = 40) -> str:
    """The first and last tags of a run with several, as its note shows them: ``'a' first,
    'b' last``; one tag on the first and last lines (another between them) is said so;
    tags longer than ``limit`` characters are cut around their first difference, so the
    two never look alike, and their lengths given."""
    first, last = str(first), str(last)
    if first == last:
        return f"{_cut(first, 0, limit)} on the first and last lines, another between them"
    at = len(os.path.commonprefix([first, last]))
    start = 0 if at < limit else at - limit // 2
    return f"{_cut(first, start, limit)} first, {_cut(last, start, limit)} last"


def _cut(tag: str, start: int, limit: int) -> str:
    """``tag[start:start + limit]`` quoted, ``...`` where it was cut, and its length if it was."""
    if len(tag) <= limit:
        return repr(tag)
    piece = tag[start:start + limit]
    return (f"{'...' if start else ''}{piece!r}{'...' if start + limit < len(tag) else ''} "
            f"({len(tag):,} characters)")


def notes_line(row: dict, which: str = "all") -> str | None:
    """``FILE: note; note`` for a file with notes, else None; ``which``: ``all`` the notes,
    ``differences`` those where reeval reads otherwise than trec_eval or drops lines,
    ``as_trec_eval`` the others (:func:`tagged_notes`)."""
    notes = [note for note, same in tagged_notes(row)
             if which == "all" or same == (which == "as_trec_eval")]
    return f"{row['file']}: " + "; ".join(notes) if notes else None
