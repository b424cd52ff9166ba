"""The sign-in message the portal mails: plain text and HTML from the templates in `templates/portal/email/`."""

from __future__ import annotations

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.mail import Mail
from garage_tools.web.pages import TEMPLATES
from garage_tools.web.signin import LINK_LIFETIME

_mail_templates = Environment(
    loader=FileSystemLoader(TEMPLATES / "portal" / "email"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def magic_link_mail(to: str, link: str) -> Mail:
    """The sign-in message: plain text and HTML, the link, how long it works, what to do if unexpected."""
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    context = {"link": link, "minutes": minutes}
    return Mail(
        to=to,
        subject="Your sign-in link for Garage Door Tools",
        text=_mail_templates.get_template("sign_in.txt").render(context),
        html=_mail_templates.get_template("sign_in.html").render(context),
        kind="magic_link",
    )
