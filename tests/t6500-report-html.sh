#!/bin/bash
# schedreplay report --html: one self-contained page (it parses as HTML, its
# SVG charts as XML; no script, nothing fetched), holding the fidelity per
# kind, the patch-pair table and the latency per task group with the
# database's figures; task names escaped; the errors.
. "$(dirname "$0")/test-lib.sh"

cd "$TOP" || exit 1
command -v python3 >/dev/null || skip_all "no python3 to parse the page"
N=tests/fixtures/tracedat/numa
DB=$TMP/run.db
"$SR" replay -q -m mainline -m v4.15 -p wake-affine-equal -p exit-sync-mel \
	-t $N/numa-6.1-pingpong.topo -o "$DB" $N/numa-6.1-pingpong.dat || fail "replays"

ok "report --html writes the page" "$SR" report --html "$TMP/r.html" "$DB"
ok "nothing on standard output" test ! -s "$TMP/out"
ok "no temporary file is left" sh -c "! ls '$TMP'/r.html.tmp-* 2>/dev/null"
ok "it parses; its charts are SVG; nothing is fetched or run" python3 - "$TMP/r.html" <<'EOF'
import html.parser, re, sys
import xml.etree.ElementTree as ET
s = open(sys.argv[1], encoding='utf-8').read()
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ('src', 'href') or (v and re.match(r'(https?:)?//', v) and k != 'xmlns'):
                sys.exit('fetches: %s=%s' % (k, v))
p = P()
p.feed(s)
for t in ('script', 'link', 'img', 'iframe', 'object'):
    if t in p.tags:
        sys.exit('has <%s>' % t)
svgs = re.findall(r'<svg.*?</svg>', s, re.S)
if len(svgs) < 2:
    sys.exit('%d charts' % len(svgs))
for x in svgs:
    ET.fromstring(x)
if not s.startswith('<!DOCTYPE html>') or not s.rstrip().endswith('</html>'):
    sys.exit('not one whole page')
EOF
ok "the patch-pair table names every pair of the run" sh -c "
	for p in \$(sqlite3 '$DB' 'SELECT DISTINCT patch FROM patch_summary'); do
		grep -q \"<td class=\\\"k\\\">\$p</td>\" '$TMP/r.html' || exit 1
	done"
ok "the fidelity chart has a bar per base model and kind" python3 - "$TMP/r.html" "$DB" <<'EOF'
import re, sqlite3, sys
s = open(sys.argv[1], encoding='utf-8').read()
db = sqlite3.connect(sys.argv[2])
n = db.execute("SELECT count(*) FROM fidelity WHERE path IS NULL").fetchone()[0]
bars = len(re.findall(r'<title>exact [0-9.]+%</title>', s))
sys.exit(0 if bars == n and n > 0 else 'bars %d, fidelity rows %d' % (bars, n))
EOF
ok "the reconciled table: each kind with the database's count" python3 - "$TMP/r.html" "$DB" <<'EOF'
import re, sqlite3, sys
s = open(sys.argv[1], encoding='utf-8').read()
db = sqlite3.connect(sys.argv[2])
want = db.execute('SELECT kind, n FROM reconciled WHERE run_id = 1 ORDER BY rowid').fetchall()
want.append(('all', sum(n for _, n in want)))
part = s[s.index('engine state reconciled with the trace'):]
part = part[:part.index('</table>')]
got = [(k, int(n)) for k, n in re.findall(r'<tr><td class="k">([a-z_]+)</td><td>(\d+)</td>', part)]
sys.exit(0 if len(want) > 1 and got == want else 'page %s, database %s' % (got, want))
EOF
ok "the latency table's groups add up to the wakeups" python3 - "$TMP/r.html" "$DB" <<'EOF'
import re, sqlite3, sys
s = open(sys.argv[1], encoding='utf-8').read()
db = sqlite3.connect(sys.argv[2])
part = s[s.index('scheduling latency per task group'):]
rows = re.findall(r'<tr><td class="k">([^<]*)</td><td>(\d+)</td>(?:<td>[0-9.]+</td>){4}'
                  r'((?:<td>\d+</td>){5})</tr>', part)
n = db.execute('SELECT count(*) FROM wakeup').fetchone()[0]
total = sum(int(r[1]) for r in rows)
dec = sum(sum(int(x) for x in re.findall(r'\d+', r[2])) for r in rows)
if not rows or total != n or dec != n:
    sys.exit('groups %d, wakeups %d, in decades %d, database %d' % (len(rows), total, dec, n))
if 'init' not in [r[0] for r in rows]:
    sys.exit('no init group: %s' % [r[0] for r in rows])
EOF

H=$FIX/tracedat/hostile
"$SR" replay -q -o "$TMP/h.db" -t 2 -m mainline -p wake-affine-equal \
	"$H/esc-comm-ansi-v6.dat" 2>/dev/null || fail "the hostile trace replays"
ok "hostile task names: a page" "$SR" report --html "$TMP/h.html" "$TMP/h.db"
ok "... with no raw control byte" python3 -c "
import re, sys
b = open(sys.argv[1], 'rb').read()
sys.exit(1 if re.search(rb'[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]', b) else 0)" "$TMP/h.html"

"$SR" report --html "$TMP/x.html" "$DB" "$DB" 2>"$TMP/e"
same "--html with DB2: exit 2" 2 $?
"$SR" report --html "$TMP/x.html" --json "$DB" 2>"$TMP/e"
same "--html with --json: exit 2" 2 $?
"$SR" report --html "$TMP/no/dir/x.html" "$DB" 2>"$TMP/e"
same "an unwritable page: exit 1" 1 $?
ok "... the message names the page asked for" grep -q "cannot create '$TMP/no/dir/x.html' (written as" "$TMP/e"
ok "... nothing left" sh -c "! ls '$TMP'/no 2>/dev/null"

test_done
