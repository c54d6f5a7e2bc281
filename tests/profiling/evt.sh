#!/bin/sh
# bwanalyze evt: a Gumbel sample of known mu/beta gives estimates within
# tolerance and ok; an AR(1) series, a trend and too few samples are
# refused with the assumption that failed.
set -u
. "$top_srcdir/tests/profiling/lib.sh"

# per-run Gumbel(5000, 30): the block-25 maxima are Gumbel(5000 + 30 ln 25,
# 30), and x_p is the per-run quantile 5000 - 30 ln(-ln(1 - p))
"$gen" samples --dist gumbel:5000:30 --n 25000 --seed 5 -o "$tmp/g.txt"
out=$("$bw" evt "$tmp/g.txt" --json --p 0.001)
rc=$?
[ $rc = 0 ] || no "gumbel: exit $rc: $out"
echo "$out" | awk -v RS=, -F: '
	/"mu"/ { mu = $2 } /"beta"/ { beta = $2 }
	/"1e-09"/ { p9 = $2 } /"0.001"/ { p3 = $2 }
	END {
		bad = 0
		if (mu < 5096.6 - 3 || mu > 5096.6 + 3) bad = 1
		if (beta < 28.5 || beta > 31.5) bad = 1
		# 5000 + 30 * 20.723 = 5621.7; 5000 + 30 * 6.907 = 5207.2
		if (p9 < 5621.7 - 45 || p9 > 5621.7 + 45) bad = 1
		if (p3 < 5207.2 - 10 || p3 > 5207.2 + 10) bad = 1
		exit bad
	}' || no "gumbel estimates out of tolerance: $out"
case $out in *'"ok":true'*) ;; *) no "gumbel not ok: $out" ;; esac
for k in runs ljung_box ks_halves gumbel_fit extremal_index '"p":'; do
	case $out in *"$k"*) ;; *) no "json lacks $k" ;; esac
done

# dependent samples: refused, exit 1, the reason names independence
"$gen" samples --dist ar1:0.6:5000:30 --n 5000 --seed 6 -o "$tmp/ar.txt"
out=$("$bw" evt "$tmp/ar.txt" --json)
rc=$?
[ $rc = 1 ] || no "ar1: exit $rc"
case $out in *'"ok":false'*independ*) ;; *) no "ar1 not refused: $out" ;;
esac
case $out in *'"1e-09":null'*) ;; *) no "ar1 reports a pWCET: $out" ;; esac
out=$("$bw" evt "$tmp/ar.txt")
case $out in *"no pWCET"*) ;; *) no "ar1 text: $out" ;; esac

# non-stationary: a level shift between the halves
{ head -2500 "$tmp/g.txt"; tail -2500 "$tmp/g.txt" |
	awk '{ printf "%.3f\n", $1 + 200 }'; } >"$tmp/shift.txt"
out=$("$bw" evt "$tmp/shift.txt" --json)
case $out in *'"ok":false'*) ;; *) no "shift accepted: $out" ;; esac

# too few samples: a clear refusal, exit 2
head -300 "$tmp/g.txt" >"$tmp/few.txt"
out=$("$bw" evt "$tmp/few.txt" 2>&1)
rc=$?
[ $rc = 2 ] || no "few: exit $rc"
case $out in *"too few samples"*) ;; *) no "few: $out" ;; esac
out=$("$bw" evt "$tmp/g.txt" --block 0 2>&1) && no "block 0 accepted"
printf '1\nx\n' >"$tmp/bad.txt"
out=$("$bw" evt "$tmp/bad.txt" 2>&1)
case $out in *"line 2"*) ;; *) no "bad line: $out" ;; esac
exit $fail
