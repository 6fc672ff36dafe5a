"""Read our own SVG and PDF sheets back into a Page of boxes and lines, so tests can rasterise exactly
what the files say (a check of the writers' units, paper size and PDF's upward y axis)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from calibration.sheets import Box, Line, Page

SVG = "{http://www.w3.org/2000/svg}"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def page_from_svg(text: str) -> Page:
    root = ET.fromstring(text)
    width_in = float(root.get("width").removesuffix("in"))
    height_in = float(root.get("height").removesuffix("in"))
    vb = [float(v) for v in root.get("viewBox").split()]
    s = width_in / vb[2]                      # inches per user unit
    assert abs(height_in / vb[3] / s - 1) < 1e-5
    items = []
    for el in root.iter():
        if el.tag == SVG + "path":
            rects = []
            for m in re.finditer(r"M([-\d.]+) ([-\d.]+)h([-\d.]+)v([-\d.]+)h([-\d.]+)z", el.get("d")):
                x, y, w, h, back = (float(v) for v in m.groups())
                assert back == -w
                rects.append((x * s, y * s, w * s, h * s))
            items.append(Box(tuple(rects), _rgb(el.get("fill"))))
        elif el.tag in (SVG + "polyline", SVG + "polygon"):
            pts = tuple((float(a) * s, float(b) * s) for a, b in
                        (p.split(",") for p in el.get("points").split()))
            items.append(Line(pts, float(el.get("stroke-width")) * s, _rgb(el.get("stroke")),
                              float(el.get("stroke-dasharray", 0)) * s, el.tag == SVG + "polygon"))
    return Page(width_in, height_in, root.findtext(SVG + "title"), tuple(items))


def check_pdf_xref(data: bytes) -> None:
    """Every object sits at the byte offset the xref table gives, and startxref points at the table."""
    start = int(re.search(rb"startxref\n(\d+)\n%%EOF", data).group(1))
    assert data[start:start + 4] == b"xref"
    count = int(re.match(rb"xref\n0 (\d+)\n", data[start:]).group(1))
    table = data[start:].split(b"\n")[2:2 + count]
    for number, row in enumerate(table[1:], start=1):
        offset = int(row[:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), number


def page_from_pdf(data: bytes) -> Page:
    check_pdf_xref(data)
    box = [float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", data).group(1).split()]
    W, H = box[2] / 72, box[3] / 72
    length = int(re.search(rb"/Length (\d+) >>\nstream\n", data).group(1))
    begin = re.search(rb"/Length \d+ >>\nstream\n", data).end()
    content = data[begin:begin + length].decode("latin-1")
    assert data[begin + length:begin + length + 9] == b"endstream"
    items, rects, path = [], [], []
    fill, stroke, width, dash = (0, 0, 0), (0, 0, 0), 1.0, 0.0
    for line in content.splitlines():
        if line.startswith("BT"):
            continue                                  # text is not geometry
        tokens = line.split()
        i = 0
        stack: list[str] = []
        while i < len(tokens):
            t = tokens[i]
            if t == "rg":
                fill = tuple(round(float(v) * 255) for v in stack[-3:]); stack = []
            elif t == "RG":
                stroke = tuple(round(float(v) * 255) for v in stack[-3:]); stack = []
            elif t == "w":
                width = float(stack[-1]) / 72; stack = []
            elif t == "d":
                dash = float(stack[0].strip("[]") or 0) / 72 if stack[0] != "[]" else 0.0; stack = []
            elif t == "re":
                x, y, w, h = (float(v) / 72 for v in stack[-4:])
                rects.append((x, H - y - h, w, h)); stack = []
            elif t == "f":
                items.append(Box(tuple(rects), fill)); rects = []
            elif t in ("m", "l"):
                path.append((float(stack[-2]) / 72, H - float(stack[-1]) / 72)); stack = []
            elif t == "h":
                pass                                  # "h S": closed, seen at S
            elif t == "S":
                items.append(Line(tuple(path), width, stroke, dash, tokens[i - 1] == "h")); path = []
            else:
                stack.append(t)
            i += 1
    return Page(W, H, "pdf", tuple(items))
