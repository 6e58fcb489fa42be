"""Error classes: what kind of failure is this, and what should the loop do?

Not every failure deserves a retry. Four classes, four reactions:

==============  ====================================  ==================================
class           examples                              the loop
==============  ====================================  ==================================
transient       timeouts, HTTP 429 and 5xx,           model requests are retried with
                connection errors                     backoff up to ``max_retries``
invalid_input   bad arguments, file not found,        fed back to the model, which
                unknown tool, bad CSV                 should change its approach
permission      sandbox refusal, a denied action      stops the run (``policy_denied``)
                                                      by default, never retried
logic           a check the task itself fails         normal feedback: counted as a
                (tests fail, file not as expected)    step, not as a tool failure
==============  ====================================  ==================================

Only *model requests* are retried by the loop (how long to wait is
``retry.py``'s job). A transient *tool* error (``UNAVAILABLE``) is fed back
to the model like any other error: the model may call again, and the repeat
and no-progress guards bound how often.

Tool error codes are mapped by :data:`TOOL_ERROR_CLASSES`; a code not listed
is treated as ``invalid_input`` (feed it back, do not retry). Retrying a
permission refusal or a failing test is the most common way to burn budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # request.py imports this module
    from .request import ModelFailure

TOOL_ERROR_CLASSES = {
    "TIMEOUT": "transient",
    "UNAVAILABLE": "transient",
    "RATE_LIMITED": "transient",
    "PATH_NOT_ALLOWED": "permission",
    "PERMISSION_DENIED": "permission",
    "POLICY_DENIED": "permission",
    "CHECK_FAILED": "logic",
    "TESTS_FAILED": "logic",
}
TRANSIENT_STATUS = frozenset({408, 409, 429})


def tool_error_class(code: str | None) -> str:
    """The class of a tool error code (unknown codes: ``invalid_input``)."""
    return TOOL_ERROR_CLASSES.get(code or "", "invalid_input")


def model_failure_class(failure: ModelFailure) -> str:
    """Transient failures are worth another attempt; the rest are not."""
    if failure.kind in ("timeout", "connection"):
        return "transient"
    status = failure.status_code or 0
    if status in TRANSIENT_STATUS or status >= 500:
        return "transient"
    if status in (401, 403):
        return "permission"
    return "invalid_input"
