"""The one exception for bad input."""


class InputError(ValueError):
    """Bad input (a file, a pipe, an option): the message names the source and what was
    expected. Commands print it as one line and exit 1; rules log it and fail without a
    traceback."""


class ReevalWarning(UserWarning):
    """Input that was read, but not all of it as given, or not as trec_eval 10 would: lines
    dropped (NaN scores, duplicates), read differently from trec_eval, or numbers trec_eval
    10 would not print for the same options. The Python API issues one per call that had
    such notes (the notes themselves are in the result's ``attrs["notes"]``, with the one
    line on what trec_eval reads alike, which warns nothing);
    ``warnings.simplefilter("ignore", reeval.ReevalWarning)`` silences it."""
