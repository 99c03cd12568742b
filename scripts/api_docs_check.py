#!/usr/bin/python3
"""Fails on an enum value or a concept of the public headers without a /// comment.

Doxygen 1.9.4 does not warn about these two kinds of name, so scripts/api-docs.sh reads its
XML output with this check instead. Usage: api_docs_check.py XML_DIR
"""
import pathlib
import sys
import xml.etree.ElementTree as ET


def documented(element):
    """True when the element's brief or detailed description holds any text."""
    for tag in ("briefdescription", "detaileddescription"):
        node = element.find(tag)
        if node is not None and "".join(node.itertext()).strip():
            return True
    return False


def where(element):
    location = element.find("location")
    if location is None:
        return "?"
    return f"{location.get('file')}:{location.get('line')}"


def main(xml_dir):
    missing = []
    for path in sorted(pathlib.Path(xml_dir).glob("*.xml")):
        root = ET.parse(path).getroot()
        for compound in root.iter("compounddef"):
            if compound.get("kind") == "concept" and not documented(compound):
                missing.append(f"{where(compound)}: concept {compound.findtext('compoundname')}")
        for enum in root.iter("memberdef"):
            if enum.get("kind") != "enum":
                continue
            for value in enum.iter("enumvalue"):
                if not documented(value):
                    missing.append(f"{where(enum)}: enum value {enum.findtext('name')}::"
                                   f"{value.findtext('name')}")
    for line in sorted(set(missing)):
        print(f"{line} has no /// comment", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
