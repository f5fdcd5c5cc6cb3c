"""pycsw peer for `npm run bench:peers`.

    python pycsw_peer.py setup WORKDIR URL      writes WORKDIR/pycsw.yml and an empty SQLite repository
    python pycsw_peer.py load WORKDIR XMLDIR... [BATCH]
                                                 loads every *.xml of each XMLDIR through pycsw's own parser
                                                 (metadata.parse_record) and repository layer, committing
                                                 once per BATCH records (pycsw-admin.py load-records commits
                                                 per record, ~200 records/s); prints a JSON summary
    python pycsw_peer.py load-stream WORKDIR [BATCH]
                                                 the same, reading the documents from stdin instead of
                                                 files, each framed as its length in bytes on a line of
                                                 its own, then the bytes (the bench writes them while
                                                 the loader parses, so neither waits for the other)

    python pycsw_peer.py dump WORKDIR            prints the repository's records as pycsw stored them (JSON:
                                                 identifier, typename, title, wkt_geometry, insert_date)
    python pycsw_peer.py delete WORKDIR [ID...]  deletes records by identifier (every record without an ID)

`load` replaces a record whose identifier is already there (as a harvest or a transaction would),
so a changed document loaded again is an update; `load-stream` (the bench's bulk load into an empty
repository) only inserts, without the look-up per record that replacing costs.

Serve with: PYCSW_CONFIG=WORKDIR/pycsw.yml gunicorn -b 127.0.0.1:PORT pycsw.wsgi_flask:APP
"""
import json
import os
import sys
import time
from glob import glob

import yaml


NIL_SERVICE_TYPE = b'<srv:serviceType gco:nilReason="missing"/>'
FILLED_SERVICE_TYPE = b'<srv:serviceType><gco:LocalName>other</gco:LocalName></srv:serviceType>'


def config_path(workdir):
    return os.path.join(workdir, 'pycsw.yml')


def setup(workdir, url):
    from pycsw.core import repository

    database = 'sqlite:///' + os.path.join(os.path.abspath(workdir), 'records.db')
    cfg = {
        'server': {
            'home': workdir,
            'url': url,
            'mimetype': 'application/xml; charset=UTF-8',
            'encoding': 'UTF-8',
            'language': 'en-US',
            'maxrecords': 10,
            'pretty_print': False,
            'gzip_compresslevel': 0,
        },
        'logging': {'level': 'ERROR'},
        'profiles': ['apiso'],
        'federatedcatalogues': [],
        'manager': {'transactions': False, 'allowed_ips': ['127.0.0.1']},
        'metadata': {
            'identification': {
                'title': 'pycsw peer', 'description': 'bench:peers', 'keywords': ['bench'],
                'keywords_type': 'theme', 'fees': 'None', 'accessconstraints': 'None',
                'terms_of_service': 'None', 'url': url,
            },
            'license': {'name': 'CC-BY 4.0', 'url': 'https://creativecommons.org/licenses/by/4.0/'},
            'provider': {'name': 'bench', 'url': url},
            'contact': {
                'name': 'bench', 'position': 'bench', 'address': 'none', 'city': 'none',
                'stateorprovince': 'none', 'postalcode': '0', 'country': 'none', 'phone': '0',
                'fax': '0', 'email': 'bench@example.org', 'url': url, 'hours': 'none',
                'instructions': 'none', 'role': 'pointOfContact',
            },
            'inspire': {'enabled': False},
        },
        'repository': {'database': database, 'table': 'records'},
    }
    os.makedirs(workdir, exist_ok=True)
    with open(config_path(workdir), 'w', encoding='utf8') as fh:
        yaml.safe_dump(cfg, fh)
    repository.setup(database, table='records')


def read_files(xmldir):
    """The bytes of every *.xml of a directory, in name order."""
    for path in sorted(glob(os.path.join(xmldir, '*.xml'))):
        with open(path, 'rb') as fh:
            yield path, fh.read()


def read_frames(stream):
    """Documents framed as `<length in bytes>\\n<bytes>` until the end of the stream."""
    index = 0
    while True:
        header = stream.readline()
        if not header:
            return
        length = int(header)
        text = stream.read(length)
        if len(text) != length:
            raise ValueError(f'document {index}: stream ended after {len(text)} of {length} bytes')
        index += 1
        yield f'stdin document {index}', text


def load(workdir, documents, batch, upsert=False):
    from pycsw.core import metadata, repository
    from pycsw.core.config import StaticContext
    from pycsw.core.etree import etree

    with open(config_path(workdir), encoding='utf8') as fh:
        cfg = yaml.safe_load(fh)
    context = StaticContext()
    repo = repository.Repository(cfg['repository']['database'], context, table='records')
    started = time.time()
    loaded = failed = filled = 0
    pending = []

    def flush():
        nonlocal pending
        if not pending:
            return
        repo.session.begin()
        for rec in pending:
            if upsert:
                repo.session.merge(rec)
            else:
                repo.session.add(rec)
        repo.session.commit()
        pending = []

    for name, text in documents:
        try:
            # pycsw 3.0.0b2 crashes (','.join over None) on a service record whose srv:serviceType
            # is nil (gco:nilReason="missing", valid ISO 19139): give it a LocalName instead. No
            # timed query reads the service type; the count of records changed is reported.
            if NIL_SERVICE_TYPE in text:
                text = text.replace(NIL_SERVICE_TYPE, FILLED_SERVICE_TYPE)
                filled += 1
            tree = etree.fromstring(text, context.parser).getroottree()
            for rec in metadata.parse_record(context, tree, repo):
                if isinstance(rec.xml, bytes):
                    rec.xml = rec.xml.decode()
                pending.append(rec)
                loaded += 1
        except Exception as err:  # noqa: BLE001 - counted and reported
            failed += 1
            if failed <= 3:
                print(f'pycsw_peer: {name}: {err}', file=sys.stderr)
        if len(pending) >= batch:
            flush()
    flush()
    seconds = time.time() - started
    print(json.dumps({'loaded': loaded, 'failed': failed, 'serviceTypeFilled': filled, 'seconds': round(seconds, 2),
                      'recordsPerSecond': round(loaded / seconds) if seconds > 0 else None}))


def open_repository(workdir):
    from pycsw.core import repository
    from pycsw.core.config import StaticContext

    with open(config_path(workdir), encoding='utf8') as fh:
        cfg = yaml.safe_load(fh)
    return repository.Repository(cfg['repository']['database'], StaticContext(), table='records')


def dump(workdir):
    repo = open_repository(workdir)
    rows = repo.session.query(repo.dataset).order_by(repo.dataset.identifier).all()
    print(json.dumps([{
        'identifier': row.identifier, 'typename': row.typename, 'title': row.title,
        'wkt_geometry': row.wkt_geometry, 'insert_date': row.insert_date,
    } for row in rows]))


def delete(workdir, identifiers):
    repo = open_repository(workdir)
    query = repo.session.query(repo.dataset)
    if identifiers:
        query = query.filter(repo.dataset.identifier.in_(identifiers))
    repo.session.begin()
    deleted = query.delete(synchronize_session=False)
    repo.session.commit()
    print(json.dumps({'deleted': deleted}))


if __name__ == '__main__':
    if len(sys.argv) >= 4 and sys.argv[1] == 'setup':
        setup(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'load':
        folders = sys.argv[3:]
        batch = int(folders.pop()) if len(folders) > 1 and folders[-1].isdigit() else 500
        load(sys.argv[2], (doc for folder in folders for doc in read_files(folder)), batch, upsert=True)
    elif len(sys.argv) >= 3 and sys.argv[1] == 'load-stream':
        load(sys.argv[2], read_frames(sys.stdin.buffer), int(sys.argv[3]) if len(sys.argv) > 3 else 500)
    elif len(sys.argv) >= 3 and sys.argv[1] == 'dump':
        dump(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == 'delete':
        delete(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
