"""Errors: every failure the client raises is a :class:`RearviewError`.

The server answers errors as ``{"code", "message"}`` with an HTTP status; the exception class is
chosen by ``code`` (falling back to the status), and carries all three.
"""

from __future__ import annotations

from typing import Any


class RearviewError(Exception):
    """Base class. ``status`` is the HTTP status (``None`` when no answer arrived), ``code`` the
    server's error code (e.g. ``invalid_input``) and ``message`` its explanation."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.retry_after = retry_after
        self.body = body

    def __str__(self) -> str:
        if self.status is None:
            return self.message
        return f"{self.status} {self.code}: {self.message}"


class InvalidInput(RearviewError):
    """400 ``invalid_input``: the message names the field and what is allowed."""


class Unauthorized(RearviewError):
    """401 ``unauthorized``: no valid API key where the server requires one."""


class Forbidden(RearviewError):
    """403 ``forbidden``: a namespace outside the key's grant, or an admin-only route."""


class HostNotAllowed(Forbidden):
    """403 ``host_not_allowed``: the server does not serve this Host or Origin."""


class NotFound(RearviewError):
    """404 ``not_found``: no such memory in the namespace (or no such route)."""


class MethodNotAllowed(RearviewError):
    """405 ``method_not_allowed``."""


class RequestTimeout(RearviewError):
    """408 ``request_timeout``: the server gave up waiting for the request body."""


class PayloadTooLarge(RearviewError):
    """413 ``payload_too_large``: the body is over the server's --max-request-bytes."""


class ToolError(RearviewError):
    """422 ``tool_error`` (``/mcp/tools/call`` only)."""


class RateLimited(RearviewError):
    """429 ``rate_limited``: the key is over its rate; ``retry_after`` says when to retry."""


class InternalError(RearviewError):
    """500 ``internal``."""


class Unavailable(RearviewError):
    """503 ``unavailable`` (e.g. the LLM failed, or no embedding model for the operation)."""


class Overloaded(Unavailable):
    """503 ``overloaded``: the server sheds load; ``retry_after`` says when to retry."""


class TransportError(RearviewError):
    """No answer: the connection failed or broke."""


class Timeout(TransportError):
    """No answer within the client's timeout."""


_BY_CODE: dict[str, type[RearviewError]] = {
    "invalid_input": InvalidInput,
    "unauthorized": Unauthorized,
    "forbidden": Forbidden,
    "host_not_allowed": HostNotAllowed,
    "not_found": NotFound,
    "method_not_allowed": MethodNotAllowed,
    "request_timeout": RequestTimeout,
    "payload_too_large": PayloadTooLarge,
    "tool_error": ToolError,
    "rate_limited": RateLimited,
    "internal": InternalError,
    "unavailable": Unavailable,
    "overloaded": Overloaded,
}

_BY_STATUS: dict[int, type[RearviewError]] = {
    400: InvalidInput,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    405: MethodNotAllowed,
    408: RequestTimeout,
    413: PayloadTooLarge,
    422: ToolError,
    429: RateLimited,
    500: InternalError,
    503: Unavailable,
}


def error_for(status: int, body: Any, retry_after: float | None = None) -> RearviewError:
    """The exception for an error answer: by the body's ``code``, else by the status."""
    code = message = None
    if isinstance(body, dict):
        code, message = body.get("code"), body.get("message")
    cls = _BY_CODE.get(code or "") or _BY_STATUS.get(status, RearviewError)
    if message is None:
        message = body if isinstance(body, str) and body else f"HTTP {status}"
    return cls(str(message), status=status, code=code, retry_after=retry_after, body=body)
