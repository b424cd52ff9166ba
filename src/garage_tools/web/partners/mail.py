"""The sign-in message the partner console mails (asked for on the page, or sent by an operator's invitation)."""

from __future__ import annotations

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.mail import Mail
from garage_tools.web.pages import TEMPLATES
from garage_tools.web.signin import LINK_LIFETIME

_mail_templates = Environment(
    loader=FileSystemLoader(TEMPLATES / "partners" / "email"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def partner_link_mail(to: str, link: str, *, invited: bool = False) -> Mail:
    """The sign-in message: plain text and HTML, the link, how long it works; an invitation says why it came."""
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    context = {"link": link, "minutes": minutes, "invited": invited, "console": link.split("/confirm/", 1)[0]}
    return Mail(
        to=to,
        subject="Your partner console at Garage Door Tools" if invited else "Your sign-in link for Garage Door Tools",
        text=_mail_templates.get_template("sign_in.txt").render(context),
        html=_mail_templates.get_template("sign_in.html").render(context),
        kind="partner_link",
    )
