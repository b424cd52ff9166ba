"""Build the packaged US place index, src/garage_tools/knowledge/data/us_places.json, from the `zipcodes` package.

    uv run python scripts/build_place_index.py           # write the index
    uv run python scripts/build_place_index.py --check   # exit 1 when the packaged index is not what the package gives

Run it after upgrading `zipcodes` (the index names the version it came from), then commit the file.
The format is described in src/garage_tools/knowledge/place_index.py and its schema in
data/schemas/us_places.schema.json. Each top-level field is written on a line of its own.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

import orjson
import zipcodes

from garage_tools.knowledge.place_index import PLACE_INDEX_PATH, PlaceIndex, build_place_index, check_place_index


def render(index: PlaceIndex) -> bytes:
    """The file's bytes: `$schema` first, then one field per line, so a rebuild changes only the lines it must."""
    fields = {"$schema": "schemas/us_places.schema.json", **index.model_dump(by_alias=True)}
    lines = [orjson.dumps(key) + b": " + orjson.dumps(value) for key, value in fields.items()]
    return b"{\n" + b",\n".join(lines) + b"\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the packaged file instead of writing it")
    parser.add_argument("--out", type=Path, default=PLACE_INDEX_PATH)
    args = parser.parse_args(argv)

    source = f"zipcodes {metadata.version('zipcodes')}"
    index = build_place_index(zipcodes.list_all(), source)  # type: ignore[no-untyped-call]
    problems = check_place_index(index)
    if problems:
        print("the built index fails its check:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    wanted = render(index)
    if args.check:
        if not args.out.exists() or args.out.read_bytes() != wanted:
            print(f"{args.out} is not what {source} gives: run scripts/build_place_index.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date ({len(index.zips.split())} ZIP codes, {source})")
        return 0
    args.out.write_bytes(wanted)
    print(f"wrote {args.out}: {len(index.zips.split())} ZIP codes from {source}, {len(wanted) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
