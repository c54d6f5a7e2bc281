#!/bin/sh
# bwanalyze plot edf|gq|pwcet: PNG and SVG through gnuplot (skipped
# without gnuplot), and bad arguments refused.
set -u
[ -n "${GNUPLOT:-}" ] || exit 77
. "$top_srcdir/tests/profiling/lib.sh"

images() {	# prefix
	[ "$(head -c 8 "$1.png" | od -An -tx1 | tr -d ' \n')" = \
	    89504e470d0a1a0a ] || no "$1.png is not a PNG"
	grep -q '<svg' "$1.svg" || no "$1.svg is not SVG"
}

"$gen" trace --blocks 60 --runs 40 --clusters 1000:20,1500:30 \
	--intervals 0:0,20:1,40:0 -o "$tmp/t.csv"
"$bw" plot edf "$tmp/t.csv" -o "$tmp/edf" >/dev/null || no "plot edf"
images "$tmp/edf"
grep -q "e0 = " "$tmp/edf.gp" || no "edf marks no e0"
grep -q "e1 = " "$tmp/edf.gp" || no "edf marks no e1"

"$bw" cluster "$tmp/t.csv" -o "$tmp/t.bwk" --concurrency 4 >/dev/null
printf '# Q wcet\n0 30000\n0.5 36000\n1 41000\n' >"$tmp/m.txt"
"$bw" plot gq "$tmp/t.bwk" --measured "$tmp/m.txt" -o "$tmp/gq" \
	>/dev/null || no "plot gq"
images "$tmp/gq"
[ "$(grep -c . "$tmp/gq.dat")" = 104 ] || no "gq data: 101 Q + 3 points"

"$gen" samples --dist gumbel:5000:30 --n 2000 -o "$tmp/s.txt"
"$bw" plot pwcet "$tmp/s.txt" --p 1e-4 -o "$tmp/pw" >/dev/null ||
	no "plot pwcet"
images "$tmp/pw"
# per block: the measured curve is of the block maxima (80 of them)
"$bw" plot pwcet "$tmp/s.txt" --per block -o "$tmp/pb" >/dev/null ||
	no "plot pwcet --per block"
images "$tmp/pb"
grep -q "per block" "$tmp/pb.gp" || no "per-block axis label"
[ "$(awk 'NF == 0 { exit } { n++ } END { print n }' "$tmp/pb.dat")" = 79 ] ||
	no "per-block EDF: not the 80 block maxima"

"$bw" plot bars "$tmp/s.txt" -o "$tmp/x" 2>/dev/null && no "unknown kind"
"$bw" plot pwcet "$tmp/s.txt" 2>/dev/null && no "missing -o"
GNUPLOT=/nonexistent/gnuplot "$bw" plot pwcet "$tmp/s.txt" -o "$tmp/y" \
	>/dev/null 2>&1 && no "missing gnuplot not reported"
exit $fail
