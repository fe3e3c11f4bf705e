"""botocore's exceptions as dynotui's two kinds of error, each one sentence."""

from __future__ import annotations

from dynotui.core.errors import DynotuiError, InputError, ServiceError, ThrottledError
from dynotui.core.text import plural

THROTTLING = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "LimitExceededException",
}


def translate(exc: BaseException, table: str | None = None) -> DynotuiError:
    if isinstance(exc, DynotuiError):
        return exc
    # botocore is imported when something failed, not when dynotui starts.
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectTimeoutError,
        EndpointConnectionError,
        NoCredentialsError,
        NoRegionError,
        ReadTimeoutError,
    )
    from botocore.exceptions import (
        ConnectionError as BotoConnectionError,
    )

    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = error.get("Code", "")
        message = error.get("Message", "") or str(exc)
        attempts = exc.response.get("ResponseMetadata", {}).get("RetryAttempts", 0)
        if code == "ResourceNotFoundException":
            what = f"table '{table}'" if table else "the table"
            return InputError(f"{what} does not exist at this endpoint and region: {message}")
        if code == "ValidationException":
            return InputError(f"DynamoDB rejected the request: {message}")
        if code in THROTTLING:
            return ThrottledError(
                f"DynamoDB throttled the request ({code}) and "
                f"{plural(attempts, 'retry', 'retries')} did not get through; wait and retry, or "
                "lower the page size"
            )
        if code in {"AccessDeniedException", "UnrecognizedClientException"} or "Auth" in code:
            return ServiceError(f"access denied ({code}): {message}")
        if code.startswith(("InternalServerError", "ServiceUnavailable")) or code.isdigit():
            return ServiceError(
                f"DynamoDB failed to answer ({code or 'HTTP error'}) after "
                f"{plural(attempts, 'retry', 'retries')}; "
                "retry in a moment"
            )
        return ServiceError(f"DynamoDB error {code}: {message}")
    if isinstance(exc, NoCredentialsError):
        return ServiceError(
            "no AWS credentials found: set a profile (--profile) or AWS_* variables."
        )
    if isinstance(exc, NoRegionError):
        return InputError("no AWS region: pass --region or set AWS_REGION.")
    if isinstance(exc, ReadTimeoutError):
        return ServiceError(
            f"DynamoDB did not answer in time ({exc}); retry, or raise --read-timeout"
        )
    if isinstance(exc, ConnectTimeoutError):
        return ServiceError(f"cannot reach DynamoDB: connecting timed out ({exc})")
    if isinstance(exc, EndpointConnectionError | BotoConnectionError):
        return ServiceError(f"cannot reach DynamoDB: {exc}")
    if isinstance(exc, BotoCoreError):
        return ServiceError(f"request failed: {exc}")
    return ServiceError(f"{type(exc).__name__}: {exc}")
