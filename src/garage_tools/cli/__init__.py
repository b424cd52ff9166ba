"""The `garage-tools` command: serve, call a tool, and the operator's hands on keys, connected apps, the database, mail,
the partner directory, the data files, the labs and the generated docs.

One module per command group, and each imports what it uses inside its commands: listing the commands
(`--help`) loads click and these small modules only, and a command loads what it needs, nothing more (only
`serve` loads the server, its Starlette app, the MCP SDK and uvicorn). That keeps a command quick, and it
keeps each `serve --workers N` worker quick to start too, since a worker imports this module again.
"""

from __future__ import annotations

import importlib

import click

from garage_tools import __version__

#: Each command, and the module of this package that defines it under the same name.
COMMANDS = {
    "apps": "apps",
    "call": "call",
    "data": "data",
    "db": "db",
    "docs": "docs",
    "keys": "keys",
    "knowledge": "knowledge",
    "labs": "labs",
    "mail": "mail",
    "partners": "partners",
    "promotions": "partners",
    "requests": "requests",
    "serve": "serve",
}


class LazyCommands(click.Group):
    """A group whose commands are imported when one is run or listed, not when the group is."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command: click.Command = getattr(importlib.import_module(f"garage_tools.cli.{module}"), cmd_name)
        return command


@click.group(cls=LazyCommands)
@click.version_option(__version__, prog_name="garage-tools")
def main() -> None:
    """Garage Door Tools Service: garage-door tools over REST and MCP."""


if __name__ == "__main__":
    main()
