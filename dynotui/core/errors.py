"""User-facing errors: one sentence each, saying what went wrong and how to fix it.

``InputError`` is the user's to fix (exit 2 in the CLI); ``ServiceError`` is the
connection's or the service's (exit 1). ``translate`` turns botocore's exceptions
into one of the two so no caller has to know botocore's zoo.
"""

from __future__ import annotations

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    ReadTimeoutError,
)
from botocore.exceptions import (
    ConnectionError as BotoConnectionError,
)


class DynotuiError(Exception):
    exit_code = 1


class InputError(DynotuiError):
    """Bad input: a spec, an expression, a cursor, a table name."""

    exit_code = 2


class ServiceError(DynotuiError):
    """The request was fine but could not be served: connection, throttling, access."""

    exit_code = 1


THROTTLING = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "LimitExceededException",
}


def translate(exc: Exception, table: str | None = None) -> DynotuiError:
    if isinstance(exc, DynotuiError):
        return exc
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = error.get("Code", "")
        message = error.get("Message", "") or str(exc)
        if code == "ResourceNotFoundException":
            what = f"table '{table}'" if table else "the table"
            return InputError(f"{what} does not exist at this endpoint and region: {message}")
        if code == "ValidationException":
            return InputError(f"DynamoDB rejected the request: {message}")
        if code in THROTTLING:
            return ServiceError(
                f"DynamoDB throttled the request and retries ran out ({code}); wait and retry, "
                "or lower the page size."
            )
        if code in {"AccessDeniedException", "UnrecognizedClientException"} or "Auth" in code:
            return ServiceError(f"access denied ({code}): {message}")
        return ServiceError(f"DynamoDB error {code}: {message}")
    if isinstance(exc, NoCredentialsError):
        return ServiceError(
            "no AWS credentials found: set a profile (--profile) or AWS_* variables."
        )
    if isinstance(exc, NoRegionError):
        return InputError("no AWS region: pass --region or set AWS_REGION.")
    if isinstance(exc, EndpointConnectionError | BotoConnectionError | ReadTimeoutError):
        return ServiceError(f"cannot reach DynamoDB: {exc}")
    if isinstance(exc, BotoCoreError):
        return ServiceError(f"request failed: {exc}")
    return ServiceError(f"{type(exc).__name__}: {exc}")
