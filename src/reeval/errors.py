"""The one exception for bad input."""


class InputError(ValueError):
    """Bad input (a file, a pipe, an option): the message names the source and what was
    expected. Commands print it as one line and exit 1; rules log it and fail without a
    traceback."""


class ReevalWarning(UserWarning):
    """Input that was read, but not all of it as given: lines dropped (NaN scores, topics
    without judgments, duplicates) or read differently from trec_eval. The Python API
    issues one per call that had such notes (the notes themselves are in the result's
    ``attrs["notes"]``); ``warnings.simplefilter("ignore", reeval.ReevalWarning)`` silences it."""
