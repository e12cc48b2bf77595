#!/usr/bin/env python3
"""Converts public FAQ data that ships inside PyPI packages into the retrieval evaluation's
format (benches/data/external/*.json). Nothing here is written by the project: the pairs are
the publishers' own, unchanged (CC BY 4.0, attribution kept in each file).

    pip download --no-deps -d /tmp/faq zaragoza-construction-faq==1.2.1 fxfunds-platform-faq==1.0.0
    python3 benches/data/external/convert.py /tmp/faq
"""
import json
import pathlib
import sys
import zipfile


def wheel(folder: pathlib.Path, prefix: str) -> zipfile.ZipFile:
    found = sorted(folder.glob(f"{prefix}-*.whl"))
    if not found:
        sys.exit(f"no {prefix}-*.whl in {folder} (see the pip download line at the top)")
    return zipfile.ZipFile(found[-1])


def construction(folder: pathlib.Path) -> dict:
    z = wheel(folder, "zaragoza_construction_faq")
    rows = [json.loads(l) for l in z.read("zaragoza_construction_faq/data/faq-en.jsonl").decode().splitlines() if l.strip()]
    return {
        "name": "construction",
        "package": "zaragoza-construction-faq 1.2.1 (PyPI)",
        "licence": "CC-BY-4.0",
        "attribution": "Swedish Construction FAQ by Zaragoza AB, DOI 10.5281/zenodo.19630803, English version, unchanged",
        "pairs": [{"id": r["id"], "group": r["category"], "question": r["q"], "answer": r["a"]} for r in rows],
    }


def fxfunds(folder: pathlib.Path) -> dict:
    z = wheel(folder, "fxfunds_platform_faq")
    data = json.loads(z.read("fxfunds_platform_faq/faq.json"))
    return {
        "name": "trading-platform",
        "package": "fxfunds-platform-faq 1.0.0 (PyPI)",
        "licence": "CC-BY-4.0",
        "attribution": "FXFunds Platform FAQ, Copyright (c) 2026 FXFunds, unchanged",
        "pairs": [
            {"id": r["id"], "group": r["category"], "question": r["question"], "answer": r["answer"]}
            for r in data["questions"]
        ],
    }


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = pathlib.Path(sys.argv[1])
    out = pathlib.Path(__file__).resolve().parent
    for build in (construction, fxfunds):
        s = build(folder)
        path = out / f"{s['name']}.json"
        path.write_text(json.dumps(s, ensure_ascii=False, indent=1) + "\n")
        print(f"{path}: {len(s['pairs'])} pairs")


if __name__ == "__main__":
    main()
