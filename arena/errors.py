"""The Arena's errors: each a kind named after the gRPC status it maps to, and its HTTP status.

Every rule of the Arena raises :class:`RegistryError` (``arena.registry``, ``arena.submissions``); the gRPC
service (``arena.service``) and the HTTP routes (``arena.http``) only translate it.
"""

from __future__ import annotations

import enum

from league.entry.checks import EntryReport
from store import NameTaken, NotFound, StoreError, StoreUnavailable


class ErrorKind(enum.StrEnum):
    """What went wrong, named after the gRPC status code each maps to."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"        # malformed request: name, endpoint, games, version
    UNAUTHENTICATED = "UNAUTHENTICATED"          # token missing or wrong
    PERMISSION_DENIED = "PERMISSION_DENIED"      # endpoint refused by the network policy; bot has no token
    ALREADY_EXISTS = "ALREADY_EXISTS"            # name taken
    NOT_FOUND = "NOT_FOUND"                      # no such bot, season or ladder
    FAILED_PRECONDITION = "FAILED_PRECONDITION"  # entry checks failed; bot retired
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"    # rate limit
    UNAVAILABLE = "UNAVAILABLE"                  # the store is down


#: HTTP status of each error kind.
HTTP_STATUS: dict[ErrorKind, int] = {
    ErrorKind.INVALID_ARGUMENT: 422,
    ErrorKind.UNAUTHENTICATED: 401,
    ErrorKind.PERMISSION_DENIED: 403,
    ErrorKind.ALREADY_EXISTS: 409,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.FAILED_PRECONDITION: 400,
    ErrorKind.RESOURCE_EXHAUSTED: 429,
    ErrorKind.UNAVAILABLE: 503,
}


class RegistryError(Exception):
    """A refused request: ``kind``, a one-line message, the entry report when the checks failed,
    ``retry_after_s`` for the rate limit, and a submission's ``log`` (its build, what the bot wrote)."""

    def __init__(self, kind: ErrorKind, message: str, *, report: EntryReport | None = None,
                 retry_after_s: float | None = None, log: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.report = report
        self.retry_after_s = retry_after_s
        self.log = log


class store_errors:
    """Context manager turning store failures into RegistryError (NOT_FOUND, UNAVAILABLE)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> bool:
        if isinstance(exc, NotFound):
            raise RegistryError(ErrorKind.NOT_FOUND, str(exc)) from exc
        if isinstance(exc, (StoreUnavailable, StoreError)) and not isinstance(exc, NameTaken):
            raise RegistryError(ErrorKind.UNAVAILABLE, f"the store is unavailable: {exc}") from exc
        return False
