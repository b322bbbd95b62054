"""The published numbers of the papers reeval reproduces: ``published.yaml`` beside this
module, one top-level key per paper, values as the papers print them."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

#: The data file.
PUBLISHED = Path(__file__).with_name("published.yaml")


@functools.lru_cache(maxsize=1)
def _load() -> dict:
    import yaml

    with open(PUBLISHED, encoding="utf-8") as f:
        return yaml.safe_load(f)


def published(paper: str) -> dict:
    """The published numbers of ``paper`` (a top-level key of :data:`PUBLISHED`), a copy
    the caller may change; KeyError naming the file and the known keys otherwise."""
    data = _load()
    if paper not in data:
        raise KeyError(f"{PUBLISHED}: no published numbers for {paper!r}; known: {sorted(data)}")
    return copy.deepcopy(data[paper])
