"""Write a `calibration.sheets.Page` as SVG, PDF or PNG at exact physical scale.

SVG and PDF are vector files in points (1/72 in) with the paper size set, so a printer at 100% keeps
every length. The PDF writer is our own (a one-page PDF 1.4 with Helvetica, no system tools and no
extra package). PNG is rasterised here at `dpi` and carries a pHYs chunk so viewers know its scale.
"""
from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path
from xml.sax.saxutils import escape

import cv2
import numpy as np

from calibration.sheets import Box, Line, Page, SheetError, Text

PT_PER_IN = 72.0
FORMATS = ("svg", "pdf", "png")


def _hex(rgb) -> str:
    return "#%02x%02x%02x" % tuple(int(v) for v in rgb)


def _n(value: float) -> str:
    """A compact number for SVG/PDF: 4 decimals of a point is far below a printer's dot."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def to_svg(page: Page) -> str:
    w, h = page.width_in * PT_PER_IN, page.height_in * PT_PER_IN
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{page.width_in:.6g}in" height="{page.height_in:.6g}in" '
           f'viewBox="0 0 {_n(w)} {_n(h)}">',
           f"<title>{escape(page.title)}</title>",
           f'<rect x="0" y="0" width="{_n(w)}" height="{_n(h)}" fill="#ffffff"/>']
    for item in page.items:
        if isinstance(item, Box):
            d = " ".join(f"M{_n(x * PT_PER_IN)} {_n(y * PT_PER_IN)}h{_n(bw * PT_PER_IN)}v{_n(bh * PT_PER_IN)}"
                         f"h{_n(-bw * PT_PER_IN)}z" for x, y, bw, bh in item.rects)
            out.append(f'<path d="{d}" fill="{_hex(item.rgb)}"/>')
        elif isinstance(item, Line):
            pts = " ".join(f"{_n(x * PT_PER_IN)},{_n(y * PT_PER_IN)}" for x, y in item.points)
            tag = "polygon" if item.closed else "polyline"
            dash = f' stroke-dasharray="{_n(item.dash_in * PT_PER_IN)}"' if item.dash_in > 0 else ""
            out.append(f'<{tag} points="{pts}" fill="none" stroke="{_hex(item.rgb)}" '
                       f'stroke-width="{_n(item.width_in * PT_PER_IN)}"{dash}/>')
        elif isinstance(item, Text):
            out.append(f'<text x="{_n(item.x_in * PT_PER_IN)}" y="{_n(item.y_in * PT_PER_IN)}" '
                       f'font-family="Helvetica, Arial, sans-serif" font-size="{_n(item.size_pt)}" '
                       f'text-anchor="{item.anchor}" fill="{_hex(item.rgb)}">{escape(item.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _pdf_text(text: str) -> str:
    """A PDF literal string: Latin-1 only, with ( ) \\ escaped."""
    safe = text.encode("latin-1", "replace").decode("latin-1")
    return "(" + safe.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _rg(rgb) -> str:
    return " ".join(_n(v / 255) for v in rgb)


def pdf_content(page: Page) -> str:
    """The page's content stream: PDF's y axis points up from the bottom edge."""
    H = page.height_in * PT_PER_IN
    ops = []
    for item in page.items:
        if isinstance(item, Box):
            ops.append(f"{_rg(item.rgb)} rg")
            ops.extend(f"{_n(x * PT_PER_IN)} {_n(H - (y + bh) * PT_PER_IN)} {_n(bw * PT_PER_IN)} "
                       f"{_n(bh * PT_PER_IN)} re" for x, y, bw, bh in item.rects)
            ops.append("f")
        elif isinstance(item, Line):
            dash = f"[{_n(item.dash_in * PT_PER_IN)}] 0 d" if item.dash_in > 0 else "[] 0 d"
            ops.append(f"{_rg(item.rgb)} RG {_n(item.width_in * PT_PER_IN)} w {dash}")
            (x0, y0), rest = item.points[0], item.points[1:]
            path = [f"{_n(x0 * PT_PER_IN)} {_n(H - y0 * PT_PER_IN)} m"]
            path += [f"{_n(x * PT_PER_IN)} {_n(H - y * PT_PER_IN)} l" for x, y in rest]
            ops.append(" ".join(path) + (" h S" if item.closed else " S"))
        elif isinstance(item, Text):
            x = item.x_in * PT_PER_IN
            if item.anchor == "middle":   # Helvetica averages about half an em per character
                x -= 0.5 * item.size_pt * len(item.text) / 2
            ops.append(f"BT {_rg(item.rgb)} rg /F1 {_n(item.size_pt)} Tf {_n(x)} "
                       f"{_n(H - item.y_in * PT_PER_IN)} Td {_pdf_text(item.text)} Tj ET")
    return "\n".join(ops) + "\n"


def to_pdf(page: Page) -> bytes:
    """A one-page PDF 1.4 whose MediaBox is the paper size in points."""
    content = pdf_content(page).encode("latin-1")
    w, h = _n(page.width_in * PT_PER_IN), _n(page.height_in * PT_PER_IN)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Contents 4 0 R "
         f"/Resources << /Font << /F1 5 0 R >> >> >>").encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Title " + _pdf_text(page.title).encode("latin-1") + b" /Producer (tablesight) >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def rasterise(page: Page, dpi: float) -> np.ndarray:
    """The page as a BGR image at `dpi`; rectangles land on whole pixels by rounding their edges."""
    if not 30 <= dpi <= 1200:
        raise SheetError(f"dpi {dpi:g}: expected between 30 and 1200")
    width, height = round(page.width_in * dpi), round(page.height_in * dpi)
    img = np.full((height, width, 3), 255, np.uint8)
    shift = 4
    for item in page.items:
        bgr = tuple(int(v) for v in item.rgb[::-1])
        if isinstance(item, Box):
            # Edges are rounded outward by a hair, so cells that share an edge (up to float noise
            # that would straddle a half pixel) overlap by a pixel instead of leaving a white crack.
            for x, y, bw, bh in item.rects:
                img[round(y * dpi - 0.01):round((y + bh) * dpi + 0.01),
                    round(x * dpi - 0.01):round((x + bw) * dpi + 0.01)] = bgr
        elif isinstance(item, Line):
            thick = max(1, round(item.width_in * dpi))
            pts = list(item.points) + ([item.points[0]] if item.closed else [])
            for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
                for a, b in _dashes((x0, y0), (x1, y1), item.dash_in):
                    p = (round(a[0] * dpi * 16 - 8), round(a[1] * dpi * 16 - 8))
                    q = (round(b[0] * dpi * 16 - 8), round(b[1] * dpi * 16 - 8))
                    cv2.line(img, p, q, bgr, thick, cv2.LINE_AA if thick < 3 else cv2.LINE_8, shift)
        elif isinstance(item, Text):
            # Hershey simplex capitals are about 22 px tall at scale 1; a font's caps are ~0.7 em.
            scale = item.size_pt / PT_PER_IN * dpi * 0.7 / 22
            thick = max(1, round(scale * 1.5))
            (tw, _th), _ = cv2.getTextSize(item.text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            x = item.x_in * dpi - (tw / 2 if item.anchor == "middle" else 0)
            cv2.putText(img, item.text, (round(x), round(item.y_in * dpi)), cv2.FONT_HERSHEY_SIMPLEX,
                        scale, bgr, thick, cv2.LINE_AA)
    return img


def _dashes(a, b, dash_in):
    """Split segment a-b into dash pieces of dash_in on, dash_in off (the whole segment if solid)."""
    if dash_in <= 0:
        return [(a, b)]
    length = math.dist(a, b)
    out, t = [], 0.0
    while t < length:
        t1 = min(t + dash_in, length)
        out.append(((a[0] + (b[0] - a[0]) * t / length, a[1] + (b[1] - a[1]) * t / length),
                    (a[0] + (b[0] - a[0]) * t1 / length, a[1] + (b[1] - a[1]) * t1 / length)))
        t += 2 * dash_in
    return out


def png_with_dpi(png: bytes, dpi: float) -> bytes:
    """Insert a pHYs chunk (pixels per metre) right after IHDR so the PNG knows its print size."""
    ppm = round(dpi / 0.0254)
    data = struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", len(data)) + b"pHYs" + data + struct.pack(">I", zlib.crc32(b"pHYs" + data))
    ihdr_end = 8 + 8 + 13 + 4
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def to_png(page: Page, dpi: float = 300) -> bytes:
    ok, buf = cv2.imencode(".png", rasterise(page, dpi))
    if not ok:
        raise SheetError("PNG encoding failed")
    return png_with_dpi(buf.tobytes(), dpi)


def format_for(path: str | Path, fmt: str | None) -> str:
    """The output format: given, or taken from the file's extension."""
    fmt = (fmt or Path(path).suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise SheetError(f"{path}: cannot tell the format; use --format svg, pdf or png")
    return fmt


def write_sheet(page: Page, path: str | Path, fmt: str | None = None, dpi: float = 300) -> str:
    """Write `page` to `path`; returns the format used."""
    fmt = format_for(path, fmt)
    data = {"svg": lambda: to_svg(page).encode("utf-8"), "pdf": lambda: to_pdf(page),
            "png": lambda: to_png(page, dpi)}[fmt]()
    Path(path).write_bytes(data)
    return fmt
