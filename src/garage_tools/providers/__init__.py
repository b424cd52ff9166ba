"""Outbound models: the language and vision clients the tools may use, and their offline absence.

`base.py` holds the two small interfaces tools code against; `openai_compatible.py` and
`anthropic.py` implement them over HTTP; `factory.py` builds them from settings. With no provider
configured, `Models()` has neither, and each tool falls back to its offline method and says so.
"""
