"""The error taxonomy and the `{"error": {"code", "message", "status"}}` envelope.

Every failure a caller can see is a `ServiceError` with a stable `code` string. Surfaces
only encode it (an HTTP response on REST, an `isError` tool result on MCP); they never
invent codes of their own, so the same mistake reads the same on every surface.
The codes are documented in docs/api.md (Errors) and on /ai; changing one is a breaking change.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class FieldProblem(BaseModel):
    """One invalid field: where it is and what is wrong with it."""

    field: str = Field(description="Dotted path of the field in the request body, e.g. `recipient.zip`.")
    message: str = Field(description="Why the value was rejected.")


class ErrorBody(BaseModel):
    """The inside of the error envelope."""

    model_config = ConfigDict(title="ErrorBody")

    code: str = Field(description="Stable machine-readable error code; see the error code table.")
    message: str = Field(description="Human-readable explanation, safe to show to an end user.")
    status: int = Field(description="The HTTP status this error maps to.")
    details: list[FieldProblem] | None = Field(
        default=None,
        description=(
            "Per-field problems: on `invalid_arguments` errors, and on others that one field caused (such as "
            "`unknown_location`)."
        ),
    )


class ErrorEnvelope(BaseModel):
    """Every error body on every surface has exactly this shape."""

    model_config = ConfigDict(title="Error")

    error: ErrorBody


class ServiceError(Exception):
    """Base class: an error a caller is meant to see, with a stable code and HTTP status."""

    status: int = 400
    code: str = "bad_request"
    headers: dict[str, str]

    def __init__(
        self,
        message: str,
        *,
        details: list[FieldProblem] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers or {}

    def envelope(self) -> dict[str, Any]:
        """The JSON-ready envelope for this error."""
        body: dict[str, Any] = {"code": self.code, "message": self.message, "status": self.status}
        if self.details:
            body["details"] = [d.model_dump() for d in self.details]
        return {"error": body}


class InvalidJson(ServiceError):
    code = "invalid_json"


class InvalidBody(ServiceError):
    code = "invalid_body"


class InvalidText(ServiceError):
    """A path, query, form or body holds NUL or another control character the service cannot keep."""

    code = "invalid_text"


class InvalidHeader(ServiceError):
    """A header the service acts on is malformed or repeated."""

    code = "invalid_header"


class InvalidArguments(ServiceError):
    code = "invalid_arguments"


class ToolFailed(ServiceError):
    """The tool ran but could not produce an answer for these (valid) arguments."""

    code = "tool_error"


class AuthRequired(ServiceError):
    status = 401
    code = "auth_required"


class InvalidKey(ServiceError):
    status = 401
    code = "invalid_key"


class OriginNotAllowed(ServiceError):
    status = 403
    code = "origin_not_allowed"


class HostNotAllowed(ServiceError):
    """The `Host` is not one this service answers to (DNS-rebinding protection on MCP)."""

    status = 421
    code = "host_not_allowed"


class UnknownTool(ServiceError):
    status = 404
    code = "unknown_tool"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class MethodNotAllowed(ServiceError):
    status = 405
    code = "method_not_allowed"


class RequestTimeout(ServiceError):
    """The client did not finish sending the request head in time; the connection is closed."""

    status = 408
    code = "request_timeout"


class PayloadTooLarge(ServiceError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(ServiceError):
    status = 415
    code = "unsupported_media_type"


class RequestHeadersTooLarge(ServiceError):
    """The request line and headers together are over the server's limit; the connection is closed."""

    status = 431
    code = "request_headers_too_large"


class RateLimited(ServiceError):
    status = 429
    code = "rate_limited"


class ChallengeRequired(ServiceError):
    """A browser caller without a key sent no `challengeToken`: it must solve the browser challenge first."""

    status = 403
    code = "challenge_required"


class ChallengeFailed(ServiceError):
    """The `challengeToken` was rejected, spent, expired, or issued for another page or action."""

    status = 403
    code = "challenge_failed"


class InternalError(ServiceError):
    status = 500
    code = "internal_error"


def incident(log: logging.Logger, what: str) -> InternalError:
    """Log the exception in hand with its traceback under a fresh incident id, once; what the caller sees
    instead (the id, no details), for a tool that failed and for any other route alike."""
    number = uuid.uuid4().hex[:12]
    log.error("%s failed (incident %s)", what, number, exc_info=True)
    return InternalError(f"{what} failed unexpectedly; the incident is logged as {number}. Please try again later.")


class ServiceUnavailable(ServiceError):
    """A dependency (the store, the rate-limit backend, a verifier) is unreachable; retry after a pause."""

    status = 503
    code = "service_unavailable"

    def __init__(self, message: str, *, retry_after: int = 5, headers: dict[str, str] | None = None) -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after), **(headers or {})})


class UnknownLocation(ServiceError):
    """A ZIP code or place name that is not in the US ZIP data set."""

    code = "unknown_location"


class ProviderUnavailable(ServiceUnavailable):
    """The language or vision model provider is down, overloaded, timing out or refusing our credentials.

    A 503 with `Retry-After`, like every other outage: the request was fine and may be sent again
    unchanged. Its own code, so a client can tell "the model is away" (answer without it, or retry
    later) from "this service is away".
    """

    code = "provider_unavailable"


class ProviderBadReply(ServiceError):
    """The model answered, but not with what was asked, even after being shown its mistake once.

    502: an upstream fault, not the caller's. Retrying may help (models are not deterministic), so
    it is worth one more try, but not a loop.
    """

    status = 502
    code = "provider_bad_reply"


class ImageRejected(ServiceError):
    """An image argument that cannot be used; each subclass names one reason with its own code."""

    code = "image_rejected"


class ImageMissing(ImageRejected):
    """Neither `image` nor `imageUrl` was sent to a tool that needs a photo."""

    code = "image_missing"


class ImageDataUrlPrefix(ImageRejected):
    """`image.data` starts with `data:…;base64,`: send the base64 text alone."""

    code = "image_data_url_prefix"


class ImageBadBase64(ImageRejected):
    code = "image_bad_base64"


class ImageNotAnImage(ImageRejected):
    """The bytes are not a PNG, JPEG, WebP or GIF image, or the image is truncated or corrupt."""

    code = "image_not_an_image"


class ImageTypeMismatch(ImageRejected):
    """`image.mimeType` is not a supported image type, or not the type the bytes actually are."""

    code = "image_type_mismatch"


class ImageTooLarge(ImageRejected):
    """Too many bytes or too many pixels (which is also how decompression bombs are refused)."""

    code = "image_too_large"


class ImageUrlNotHttps(ImageRejected):
    code = "image_url_not_https"


class ImageUrlForbidden(ImageRejected):
    """`imageUrl` leads to a private, loopback, link-local or metadata address, or to a port other than 443."""

    code = "image_url_forbidden"


class ImageFetchFailed(ImageRejected):
    """`imageUrl` could not be fetched: unknown host, refused, timed out, an error status, too many redirects."""

    code = "image_fetch_failed"


class ImageUrlNotImage(ImageRejected):
    """`imageUrl` answered with a content type other than `image/*`."""

    code = "image_url_not_image"


# -- service requests (requestService) ----------------------------------------------------------


class ConsentRequired(ServiceError):
    """A service request without the homeowner's consent to share their contact details with the pro."""

    code = "consent_required"


class UnknownPartner(ServiceError):
    """A partner id that is not in the directory (or no longer active)."""

    code = "unknown_partner"


class PartnerNotServing(ServiceError):
    """A partner that does not serve the ZIP code the request is for."""

    code = "partner_not_serving"


#: Every error class, for documentation and the OpenAPI description.
ALL_ERRORS: tuple[type[ServiceError], ...] = (
    InvalidJson,
    InvalidBody,
    InvalidHeader,
    InvalidArguments,
    ToolFailed,
    AuthRequired,
    InvalidKey,
    ChallengeRequired,
    ChallengeFailed,
    OriginNotAllowed,
    HostNotAllowed,
    UnknownTool,
    NotFound,
    MethodNotAllowed,
    RequestTimeout,
    PayloadTooLarge,
    UnsupportedMediaType,
    RequestHeadersTooLarge,
    RateLimited,
    InternalError,
    ServiceUnavailable,
    ProviderUnavailable,
    ProviderBadReply,
    UnknownLocation,
    ImageMissing,
    ImageDataUrlPrefix,
    ImageBadBase64,
    ImageNotAnImage,
    ImageTypeMismatch,
    ImageTooLarge,
    ImageUrlNotHttps,
    ImageUrlForbidden,
    ImageFetchFailed,
    ImageUrlNotImage,
    ConsentRequired,
    UnknownPartner,
    PartnerNotServing,
)
