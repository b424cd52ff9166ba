"""The sign-in message the partner console mails (asked for on the page, or sent by an operator's invitation),
in the language of the page that asked for it (an invitation: English unless told)."""

from __future__ import annotations

from jinja2 import Environment, FileSystemLoader, select_autoescape

from garage_tools.languages import DEFAULT, SUPPORTED
from garage_tools.mail import Mail
from garage_tools.web.pages import TEMPLATES
from garage_tools.web.signin import LINK_LIFETIME
from garage_tools.web.translations import N_, translations

INVITED = N_("Your partner console at Garage Door Tools")
SIGN_IN = N_("Your sign-in link for Garage Door Tools")


def _environment(language: str) -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES / "partners" / "email"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    environment.install_gettext_translations(translations(language), newstyle=True)  # type: ignore[attr-defined]
    return environment


_mail_templates = {language: _environment(language) for language in SUPPORTED}


def partner_link_mail(to: str, link: str, *, invited: bool = False, language: str = DEFAULT) -> Mail:
    """The sign-in message in `language`: plain text and HTML, the link, how long it works; an invitation says
    why it came."""
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    context = {
        "link": link,
        "minutes": minutes,
        "invited": invited,
        "console": link.split("/confirm/", 1)[0],
        "lang": language if language in _mail_templates else DEFAULT,
    }
    templates = _mail_templates.get(language, _mail_templates[DEFAULT])
    return Mail(
        to=to,
        subject=translations(language).gettext(INVITED if invited else SIGN_IN),
        text=templates.get_template("sign_in.txt").render(context),
        html=templates.get_template("sign_in.html").render(context),
        kind="partner_link",
    )
