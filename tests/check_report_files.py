#!/usr/bin/env python3
"""Reads back the files test_report wrote with Python's own parsers: the JSON
(json), the CSV (csv), the SVG (xml.dom.minidom). The tricky strings are kept
in step with test_report.c."""
import csv
import json
import sys
import xml.dom.minidom

TITLE = 'say "hi", <b>&amp;</b> | pipe \\ back\ttab'
NOTE = 'skipped, because "n" > 1024\nsecond line\r\nthird, <&>'
DEVICE = 'GPU "quoted" <&> \\ name'


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main(folder):
    with open(f"{folder}/test_report.json", encoding="utf-8") as f:
        report = json.load(f)
    if report["device"] != DEVICE:
        fail(f"JSON device: {report['device']!r}")
    rows = report["rows"]
    if len(rows) != 8 or rows[0]["title"] != TITLE or rows[1]["note"] != NOTE:
        fail(f"JSON rows: {len(rows)}, {rows[0]['title']!r}, {rows[1]['note']!r}")
    if rows[2]["max_rel_error"] is not None or rows[2]["state"] != "WRONG":
        fail("JSON: the unsafe row")

    with open(f"{folder}/test_report.csv", newline="", encoding="utf-8") as f:
        records = list(csv.reader(f, strict=True))
    if len(records) != 9 or any(len(r) != len(records[0]) for r in records):
        fail(f"CSV: {len(records)} records of {[len(r) for r in records]} fields")
    header = records[0]
    if records[1][header.index("title")] != TITLE:
        fail(f"CSV title: {records[1][header.index('title')]!r}")
    if records[2][header.index("note")] != NOTE:
        fail(f"CSV note: {records[2][header.index('note')]!r}")
    if records[4][header.index("note")] != "launch failed:\rtoo many resources":
        fail(f"CSV note with a carriage return: {records[4][header.index('note')]!r}")

    for name in ("test_report.svg", "test_report_empty.svg"):
        document = xml.dom.minidom.parse(f"{folder}/{name}")
        if document.documentElement.tagName != "svg":
            fail(f"{name}: the root is {document.documentElement.tagName}")
    texts = [t.firstChild.data for t in xml.dom.minidom.parse(f"{folder}/test_report.svg")
             .getElementsByTagName("text") if t.firstChild]
    if not any(DEVICE in t for t in texts):
        fail("SVG: the device name did not survive escaping")
    print("json, csv and svg parse")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
