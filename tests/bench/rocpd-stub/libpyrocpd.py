# libpyrocpd.py - a stand-in for rocprofiler-sdk's compiled libpyrocpd, so
# that its Python `rocpd summary` runs from a source checkout (bench only,
# tests/bench/60-import.sh; not part of rpdtools).  Only what the summary
# uses: connect() opens the file with Python's sqlite3 (the compiled one does
# the same and registers no SQL function today), load_schema() reads the
# share/rocprofiler-sdk-rocpd/*.sql files and fills in {{uuid}} / {{guid}}.
import os
import sqlite3
import types

SQL_DIR = os.environ.get("ROCPD_SQL_DIR", os.path.join(os.path.dirname(__file__), "sql"))


def connect(path, *args, **kwargs):
    return sqlite3.connect(path, *args, **kwargs)


class RocpdImportData:
    def __init__(self, obj, databases=None):
        if isinstance(obj, RocpdImportData):
            self.__dict__["connection"] = obj.connection
            self.__dict__["databases"] = obj.databases
        else:
            self.__dict__["connection"] = obj
            self.__dict__["databases"] = list(databases or [])


class schema_jinja_variables:
    uuid = ""
    guid = ""


class output_config:
    pass


sql_engine = types.SimpleNamespace(sqlite3=0)
sql_option = types.SimpleNamespace(none=0, sqlite3_pragma_foreign_keys=1)
sql_schema = types.SimpleNamespace(**{n: n for n in (
    "rocpd_tables", "rocpd_indexes", "rocpd_views", "data_views", "summary_views", "marker_views")})
agent_indexing = types.SimpleNamespace(node=0, logical_node_type=1, logical_node=2)


def load_schema(engine, kind, option, variables):
    with open(os.path.join(SQL_DIR, kind + ".sql")) as f:
        text = f.read()
    text = text.replace("{{uuid}}", variables.uuid).replace("{{guid}}", variables.guid)
    return ("PRAGMA foreign_keys = ON;\n" if option == 1 else "") + text


def format_path(path, tag=""):
    return path
