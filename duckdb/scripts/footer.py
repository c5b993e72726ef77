"""Appends DuckDB's extension metadata footer to a shared library, making it a
`.duckdb_extension` file that `LOAD` accepts.

DuckDB reads the file's last 534 bytes: a WebAssembly custom-section header named
`duckdb_signature` (so that a WebAssembly build stays a valid module), eight 32-byte fields
stored last field first, and a 256-byte signature (zeros: the file is unsigned). The fields
DuckDB reads, in field order: the magic "4", the platform (e.g. linux_amd64), the version
of DuckDB (for the C_STRUCT ABI: the oldest C API version the extension needs), the
extension's version, and the ABI type.

Usage: python3 duckdb/scripts/footer.py LIBRARY OUT --platform linux_amd64 --version 0.1.0
       [--c-api v1.2.0]
"""

from __future__ import annotations

import argparse
import shutil

SECTION_NAME = b"duckdb_signature"
FIELDS = 8
FIELD_BYTES = 32
SIGNATURE_BYTES = 256


def uleb128(n: int) -> bytes:
    """`n` as WebAssembly's unsigned LEB128."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(value: str) -> bytes:
    raw = value.encode("ascii")
    if len(raw) > FIELD_BYTES:
        raise SystemExit(f"footer.py: {value!r} is longer than {FIELD_BYTES} bytes")
    return raw.ljust(FIELD_BYTES, b"\0")


def footer(platform: str, version: str, c_api: str) -> bytes:
    fields = ["4", platform, c_api, version, "C_STRUCT", "", "", ""]
    assert len(fields) == FIELDS
    name = uleb128(len(SECTION_NAME)) + SECTION_NAME
    payload_len = len(name) + len(uleb128(SIGNATURE_BYTES)) + FIELDS * FIELD_BYTES + SIGNATURE_BYTES
    header = b"\0" + uleb128(payload_len) + name + uleb128(SIGNATURE_BYTES)
    body = b"".join(field(f) for f in reversed(fields))
    return header + body + b"\0" * SIGNATURE_BYTES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library")
    parser.add_argument("out")
    parser.add_argument("--platform", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--c-api", default="v1.2.0")
    args = parser.parse_args()
    tail = footer(args.platform, args.version, args.c_api)
    assert len(tail) == 534, len(tail)
    shutil.copyfile(args.library, args.out)
    with open(args.out, "ab") as f:
        f.write(tail)


if __name__ == "__main__":
    main()
