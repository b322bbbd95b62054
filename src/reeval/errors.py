"""The one exception for bad input."""


class InputError(ValueError):
    """Bad input (a file, a pipe, an option): the message names the source and what was
    expected. Commands print it as one line and exit 1; rules log it and fail without a
    traceback."""
