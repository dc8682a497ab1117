"""A minimal PEP 517 build backend for the pure-Python package rpdtools:
the wheel holds rpdtools/*.py and *.json; nothing to download, so
`pip install ./python` works offline.  Dependencies (pandas) are declared,
not fetched here: install Debian python3-pandas."""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "rpdtools", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = """Metadata-Version: 2.1
Name: %s
Version: %s
Summary: RaptorParser, rpdTracerControl and trace tables as pandas DataFrames, on the rpdtools C engine
Requires-Python: >=3.8
Requires-Dist: pandas
""" % (NAME, VERSION)
WHEEL = """Wheel-Version: 1.0
Generator: rpdtools-backend
Root-Is-Purelib: true
Tag: py3-none-any
"""


def _files():
    pkg = os.path.join(HERE, NAME)
    for f in sorted(os.listdir(pkg)):
        if f.endswith((".py", ".json")) and f != "_config.py":
            yield "%s/%s" % (NAME, f), os.path.join(pkg, f)


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST)
    os.makedirs(d, exist_ok=True)
    for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return DIST


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, path in _files():
            with open(path, "rb") as f:
                data = f.read()
            z.writestr(arc, data)
            record.append(_record_line(arc, data))
        for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
            arc = "%s/%s" % (DIST, name)
            z.writestr(arc, text)
            record.append(_record_line(arc, text.encode()))
        record.append("%s/RECORD,," % DIST)
        z.writestr("%s/RECORD" % DIST, "\n".join(record) + "\n")
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    base = "%s-%s" % (NAME, VERSION)
    out = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(out, "w:gz") as t:
        for rel in ["pyproject.toml", "_build/backend.py"] + [a for a, _ in _files()]:
            t.add(os.path.join(HERE, rel), arcname="%s/%s" % (base, rel))
    return base + ".tar.gz"
