"""The outgoing-mail settings: the SMTP server, the sender, and how the mail worker retries."""

from __future__ import annotations

from email.utils import formataddr, parseaddr

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings


class MailSettings(BaseSettings):
    """`GARAGE_TOOLS_SMTP_*` and `GARAGE_TOOLS_MAIL_*`; a group of `Settings`, never built on its own."""

    smtp_host: str | None = Field(
        default=None,
        description="SMTP server for outgoing mail. Default: none; mail is written as .eml files in `data_dir/mail`.",
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="SMTP server port (587 submission, 465 TLS).")
    smtp_username: str | None = Field(default=None, description="SMTP login name, if the server needs one.")
    smtp_password: SecretStr | None = Field(default=None, description="SMTP password; never logged or printed.")
    smtp_starttls: bool = Field(
        default=True, description="Upgrade the SMTP connection with STARTTLS (refuse to send if the server can't)."
    )
    smtp_tls: bool = Field(default=False, description="Use TLS from the first byte (port 465); wins over STARTTLS.")
    smtp_timeout: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Seconds to wait on each SMTP step; a send is cut off at three times this, which also bounds "
        "how long a crashed worker's message waits for another (three times this plus 10 s).",
    )
    mail_from: str = Field(
        default="Garage Door Tools <no-reply@localhost>",
        description="From address of outgoing mail; its domain also names the Message-IDs.",
    )
    mail_max_attempts: int = Field(
        default=8, ge=1, le=100, description="Delivery attempts before a message is set aside as dead."
    )
    mail_poll_seconds: float = Field(
        default=5.0, gt=0, le=3600, description="How often the mail worker looks for messages that are due."
    )
    mail_retry_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Wait before retrying a failed send; it doubles with each failure (with jitter), up to an hour.",
    )
    mail_worker_in_process: bool = Field(
        default=True,
        description="Run the mail worker inside the service. Turn off when `garage-tools mail worker` runs separately.",
    )

    @field_validator("smtp_host", "smtp_username", mode="before")
    @classmethod
    def _blank_smtp_setting_is_none(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("mail_from")
    @classmethod
    def _check_mail_from(cls, value: str) -> str:
        name, address = parseaddr(value)
        if "@" not in address or "\r" in value or "\n" in value:
            raise ValueError("mail_from must be an address such as 'Garage Door Tools <no-reply@example.com>'")
        return formataddr((name, address)) if name else address

    @property
    def mail_from_address(self) -> str:
        """The bare address of `mail_from` (the SMTP envelope sender)."""
        return parseaddr(self.mail_from)[1]
