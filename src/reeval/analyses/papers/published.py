"""The papers' published numbers, read from ``published.yaml`` beside this module.

One top-level key per paper (``asl``, ``rareness``, ...); each entry's comment in the
file names the paper, section and table it is copied from. The reports print these
numbers beside ours; nothing computes with them.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

#: the data file (package data of ``reeval.report``)
PUBLISHED_FILE = Path(__file__).with_name("published.yaml")


class PublishedNumbersError(LookupError):
    """A paper that ``published.yaml`` has no entry for, or a file that is not a mapping."""


@lru_cache(maxsize=None)
def _load(path: Path) -> dict:
    """The YAML mapping at ``path`` (read once per path), by libyaml's loader where PyYAML has
    it: the same mapping as ``yaml.safe_load``'s pure-Python reading, which costs every
    analyses job 0.075 s of CPU on ``published.yaml``, libyaml 0.008 s (docs/cluster.md)."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(data, dict):
        raise PublishedNumbersError(f"{path}: expected a mapping of paper -> numbers, "
                                    f"got {type(data).__name__}")
    return data


def published(paper: str, path: Path | None = None) -> dict:
    """The published numbers of ``paper`` (a top-level key of ``published.yaml``).

    ``path`` reads another file of the same layout (tests). The file is read once and
    cached; the caller gets the cached mapping, so it must not change it. Raises
    :class:`PublishedNumbersError` naming the file, the missing key and the keys there are.
    """
    source = Path(path) if path is not None else PUBLISHED_FILE
    data = _load(source)
    if paper not in data:
        raise PublishedNumbersError(f"{source}: no key {paper!r} (papers there: {', '.join(sorted(data))})")
    return data[paper]
