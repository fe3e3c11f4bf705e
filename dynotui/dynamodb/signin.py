"""Signing in as the AWS CLI does, with dynotui's words when it fails.

botocore resolves every kind of profile itself: keys, ``credential_process``, SSO
(``sso_session`` or the older ``sso_start_url``), assumed roles. What it says when a
sign-in has lapsed is written for botocore's own users (``Error when retrieving token
from sso: Token has expired and refresh failed``); dynotui says what to run instead, in
one line naming the profile. Credentials that must be fetched (SSO, assumed roles) are
fetched at the first request and again when they expire, hours into a session, so the
check runs before every request (before its endpoint is resolved, which for DynamoDB
reads the account from the credentials, and again before it is signed, retries
included): a lapsed SSO session found at page 40 says the same line as one found at
start.
"""

from __future__ import annotations

from typing import Any

from dynotui.core.errors import InputError


class SignInError(InputError):
    """The profile's credentials cannot be had until the user signs in again (or fixes
    the profile); the message says what to run."""


def sso_words(profile: str) -> str:
    return (
        f"the AWS SSO sign-in of profile '{profile}' has expired or was never made: "
        f"run aws sso login --profile {profile}"
    )


def profile_name(session: Any) -> str:
    """The profile in force: --profile, else AWS_PROFILE, else botocore's default
    (``session``: botocore's)."""
    return str(session.profile or "default")


def as_sign_in_error(exc: BaseException, profile: str) -> SignInError | None:
    """botocore's sign-in failures in dynotui's words; None for anything else."""
    from botocore.exceptions import CredentialRetrievalError, SSOError, TokenRetrievalError

    if isinstance(exc, SSOError | TokenRetrievalError):
        return SignInError(sso_words(profile))
    if isinstance(exc, CredentialRetrievalError):
        return SignInError(
            f"profile '{profile}' could not give credentials: its credential_process "
            f"failed ({getattr(exc, 'kwargs', {}).get('error_msg') or exc})"
        )
    return None


def credentials(session: Any) -> Any:
    """The session's credentials (None when it has none), a failed sign-in said in
    dynotui's words. A ``credential_process`` runs here."""
    try:
        return session.get_credentials()
    except Exception as exc:
        error = as_sign_in_error(exc, profile_name(session))
        if error is None:
            raise
        raise error from exc


def check_before_requests(client: Any, found: Any, profile: str) -> None:
    """Before each request, make sure ``found`` (the credentials the client signs with)
    can be had now, refreshing them as botocore would; a lapsed sign-in is a
    ``SignInError`` naming ``profile``."""

    def check(**_: Any) -> None:
        try:
            found.get_frozen_credentials()
        except Exception as exc:
            error = as_sign_in_error(exc, profile)
            if error is None:
                raise
            raise error from exc

    for event in ("before-parameter-build.dynamodb", "before-sign.dynamodb"):
        client.meta.events.register_first(event, check)
