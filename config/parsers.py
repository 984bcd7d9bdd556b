"""The API's one body parser: JSON, strictly, and never a 500 whatever the bytes.

A body is UTF-8 (RFC 8259; a leading UTF-8 BOM is ignored, the declared
charset is not used), at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (else 413),
nested at most ``MAX_DEPTH`` levels, has no NaN/Infinity, no number Python
cannot read (over 4,300 digits), and no string with a lone surrogate (it could
not be stored). Anything else is a 400 ``parse_error`` saying what is wrong.
"""

from __future__ import annotations

import codecs
import json
from typing import IO, Any

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

# A request body of this API is an object of lists of strings: 2 levels deep.
MAX_DEPTH = 32


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check(data: Any) -> None:
    """Depth and strings, iteratively (the structure may be as deep as json accepts)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise exceptions.ParseError("JSON parse error - a string holds a lone surrogate") from None
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise exceptions.ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    stack.append((key, depth))
                stack.append((item, depth + 1))


class StrictJSONParser(JSONParser):
    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1 if limit is not None else -1) if stream is not None else b""
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        if raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise exceptions.ParseError(f"JSON parse error - the body is not UTF-8 (byte {exc.start})") from None
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
        except ValueError as exc:
            if "integer string conversion" in str(exc):
                raise exceptions.ParseError("JSON parse error - a number has more than 4300 digits") from None
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        _check(data)
        return data
