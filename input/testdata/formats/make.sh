#!/bin/bash
# make.sh remakes the fixtures of this directory, written by tools other
# than neardup, from the clean-licence corpora en_docs and zh_docs (see
# README.md). It needs python3, node and npm (the npm registry), Debian's
# zstd and wget, and the corpora: $NEARDUP_CORPORA, or shared/corpora
# beside the repository. Run it from anywhere: bash input/testdata/formats/make.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
corpora=${NEARDUP_CORPORA:-$(dirname "$repo")/shared/corpora}
[ -f "$corpora/en_docs.jsonl.gz" ] || corpora=/work/shared/corpora
work=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
port=18329 # the WARC's URIs name it: keep it, or the IDs change

# 1. The records: short documents of en_docs and zh_docs that have
# near-duplicates (Jaccard of character 5-grams >= 0.8 in the corpora's
# reference pairs), and a few that have none; one without a title.
python3 - "$corpora" "$here/records.jsonl" <<'PY'
import gzip, json, sys
corpora, out = sys.argv[1], sys.argv[2]
recs, seen = [], set()
for name, npairs, nsingle in (("en_docs", 6, 5), ("zh_docs", 4, 3)):
    docs = {}
    for line in gzip.open(f"{corpora}/{name}.jsonl.gz", "rt", encoding="utf-8"):
        d = json.loads(line)
        docs[d["id"]] = d
    short = lambda i: len(docs[i]["text"]) < 1200
    taken = 0
    for line in gzip.open(f"{corpora}/{name}.pairs.jsonl.gz", "rt", encoding="utf-8"):
        p = json.loads(line)
        if taken == npairs or p["jaccard_char5"] < 0.8 or not (short(p["a"]) and short(p["b"])):
            continue
        if p["a"] in seen and p["b"] in seen:
            continue
        for i in (p["a"], p["b"]):
            if i not in seen:
                seen.add(i)
                recs.append(docs[i])
        taken += 1
    paired = set()
    for line in gzip.open(f"{corpora}/{name}.pairs.jsonl.gz", "rt", encoding="utf-8"):
        p = json.loads(line)
        paired.update((p["a"], p["b"]))
    singles = [i for i in sorted(docs) if i not in paired and 400 < len(docs[i]["text"]) < 900]
    for i in singles[:: max(1, len(singles) // nsingle)][:nsingle]:
        seen.add(i)
        recs.append(docs[i])
recs[3] = {"id": recs[3]["id"], "title": None, "text": recs[3]["text"]}
with open(out, "w", encoding="utf-8") as f:
    for r in recs:
        f.write(json.dumps({"id": r["id"], "title": r["title"], "text": r["text"]}, ensure_ascii=False) + "\n")
PY

# 2. Parquet by DuckDB (npm @duckdb/node-api, its Linux build in
# @duckdb/node-bindings-linux-x64), installed in the temporary directory.
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund @duckdb/node-api@1.5.6-r.1 >/dev/null)
cat > "$work/parquet.js" <<'JS'
const { DuckDBInstance } = require('@duckdb/node-api');
const [dir] = process.argv.slice(2);
(async () => {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  await con.run(`CREATE TABLE recs AS SELECT row_number() OVER () AS n, * FROM read_json('${dir}/records.jsonl',
    format = 'newline_delimited', columns = {id: 'VARCHAR', title: 'VARCHAR', text: 'VARCHAR'})`);
  // snappy: the records, and a column neardup does not read.
  await con.run(`COPY (SELECT id, title, text, length(text) AS chars FROM recs ORDER BY n)
    TO '${dir}/records.snappy.parquet' (FORMAT parquet, COMPRESSION snappy)`);
  // zstd, three row groups: DuckDB's row groups hold at least 2,048
  // rows (its vector size), so the records are spread over 4,200 rows,
  // the others with a null text (rejected row by row).
  const n = (await con.runAndReadAll('SELECT count(*) FROM recs')).getRows()[0][0];
  await con.run(`COPY (
      SELECT coalesce(r.id, 'filler-' || g.i) AS id, r.title, r.text
      FROM range(4200) g(i) LEFT JOIN recs r ON g.i = (r.n - 1) * (4200 // ${n})
      ORDER BY g.i)
    TO '${dir}/records.zstd.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)`);
  // A text column of integers.
  await con.run(`COPY (SELECT id, title, length(text) AS text FROM recs ORDER BY n)
    TO '${dir}/bad-type.parquet' (FORMAT parquet)`);
  const rg = await con.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${dir}/records.zstd.parquet')`);
  const v = await con.runAndReadAll('SELECT version()');
  console.log(`DuckDB ${v.getRows()[0][0]}: records.zstd.parquet has ${rg.getRows()[0][0]} row groups`);
})().catch((e) => { console.error(e); process.exit(1); });
JS
(cd "$work" && node parquet.js "$here")
# Cut short: the footer is gone.
head -c 3000 "$here/records.snappy.parquet" > "$here/truncated.parquet"

# 3. zstd by Debian's zstd, and a stream cut short: three frames of
# about 9 records each (one frame of 27 kB would be one zstd block,
# nothing of which can be read when it is cut), cut in the third.
zstd -q -f -19 "$here/records.jsonl" -o "$here/records.jsonl.zst"
: > "$work/cut.zst"
for part in 1,9 10,18 19,100; do
	sed -n "${part}p" "$here/records.jsonl" | zstd -q -19 >> "$work/cut.zst"
done
size=$(stat -c %s "$work/cut.zst")
head -c $((size - 1000)) "$work/cut.zst" > "$here/cut.jsonl.zst"

# bzip2 by Debian's bzip2 (input's TestReaderCompressed).
printf '{"id":"b1","text":"bzip2 compressed line one"}\n{"id":"b2","text":"bzip2 compressed line two"}\n' |
	bzip2 -9 > "$here/small.jsonl.bz2"

# 4. WARC by wget --warc-file, of the records as HTML pages served on
# loopback, with an image and a missing page (skipped records).
python3 - "$here/records.jsonl" "$work/site" "$port" > "$work/urls.txt" <<'PY'
import html, json, os, sys
src, site, port = sys.argv[1], sys.argv[2], sys.argv[3]
for line in open(src, encoding="utf-8"):
    r = json.loads(line)
    path = os.path.join(site, r["id"] + ".html")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    title = "" if r["title"] is None else "<title>" + html.escape(r["title"]) + "</title>"
    with open(path, "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html>\n<html><head><meta charset="utf-8">' + title +
                "</head>\n<body><pre>" + html.escape(r["text"]) + "</pre></body></html>\n")
    print(f"http://127.0.0.1:{port}/{r['id']}.html")
with open(os.path.join(site, "logo.png"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
print(f"http://127.0.0.1:{port}/logo.png")
print(f"http://127.0.0.1:{port}/missing.html")
PY
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
	sleep 0.1
done
# wget exits 8 for the missing page.
(cd "$work" && wget -q --tries=1 -O /dev/null --warc-file="$work/pages" -i "$work/urls.txt") || [ $? -eq 8 ]
kill "$server"
server=
cp "$work/pages.warc.gz" "$here/pages.warc.gz"

# 5. WET (no tool here writes it; built per the format as Common Crawl
# writes it: a warcinfo record, then a conversion record a page, each
# its own gzip member), and a WARC with a damaged gzip member.
python3 - "$here" "$port" <<'PY'
import gzip, json, sys, uuid, zlib
here, port = sys.argv[1], sys.argv[2]
def record(typ, fields, block):
    block = block.encode("utf-8")
    head = f"WARC/1.0\r\nWARC-Type: {typ}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return gzip.compress(head.encode("utf-8") + block + b"\r\n\r\n", mtime=0)
ns = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
out = [record("warcinfo", [("WARC-Date", "2026-11-26T00:00:00Z"), ("WARC-Record-ID", f"<urn:uuid:{uuid.uuid5(ns, 'info')}>"),
                           ("Content-Type", "application/warc-fields")], "software: neardup input/testdata/formats/make.sh\r\n")]
for line in open(f"{here}/records.jsonl", encoding="utf-8"):
    r = json.loads(line)
    uri = f"http://127.0.0.1:{port}/{r['id']}.html"
    out.append(record("conversion", [("WARC-Target-URI", uri), ("WARC-Date", "2026-11-26T00:00:00Z"),
                                     ("WARC-Record-ID", f"<urn:uuid:{uuid.uuid5(ns, uri)}>"),
                                     ("Content-Type", "text/plain")], r["text"]))
open(f"{here}/records.wet.gz", "wb").write(b"".join(out))

# Damage the deflate data of the 7th gzip member of wget's WARC: block
# type 3 is reserved.
data = bytearray(open(f"{here}/pages.warc.gz", "rb").read())
starts, pos = [], 0
while pos < len(data):
    starts.append(pos)
    d = zlib.decompressobj(31)
    d.decompress(bytes(data[pos:]))
    pos = len(data) - len(d.unused_data)
data[starts[6] + 10] = 0xFF
open(f"{here}/damaged.warc.gz", "wb").write(bytes(data))
print(f"pages.warc.gz: {len(starts)} gzip members; damaged.warc.gz: member 7 at byte {starts[6]}")
PY
ls -l "$here"
