#!/bin/sh
# bwanalyze evt: the [EVT-CUDA] decision path end to end.  A Gumbel sample
# of known mu/beta gives estimates within tolerance, accepted as
# independent; a weakly dependent series (Ljung-Box rejects) is accepted
# by the stationarity rule, a strongly dependent one refused because its
# extremes cluster, a level shift refused as non-stationary; the paper's
# Table 2 row comes back under --per block; too few samples and bad
# options are refused with a clear reason.
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
case $out in *'"rule":"independent","ok":true'*) ;;
	*) no "gumbel not accepted as independent: $out" ;; esac
for k in runs ljung_box ks_halves trend ar_order gumbel_fit gumbel_tail \
    '"method":"blocks"' extremogram '"lags":[' '"per":"run"' '"p":'; do
	case $out in *"$k"*) ;; *) no "json lacks $k" ;; esac
done

# weakly dependent (the paper's host-timer traces): Ljung-Box rejects,
# the extremes do not cluster, accepted by the stationarity rule
"$gen" samples --dist ar1:0.08:5000:30 --n 25000 --seed 3 -o "$tmp/w.txt"
out=$("$bw" evt "$tmp/w.txt" --json)
rc=$?
[ $rc = 0 ] || no "weak ar1: exit $rc: $out"
case $out in *'"ljung_box":{"q":'*'"reject":true'*'"rule":"stationary","ok":true'*)
	;; *) no "weak ar1 not accepted as stationary: $out" ;; esac
out=$("$bw" evt "$tmp/w.txt")
case $out in *"accepted by rule stationary"*"pWCET at 1e-09 per run"*) ;;
	*) no "weak ar1 text: $out" ;; esac
# a stricter threshold refuses it, naming the extremal index
out=$("$bw" evt "$tmp/w.txt" --theta-min 0.999)
rc=$?
[ $rc = 1 ] || no "theta-min 0.999: exit $rc"
case $out in *"refused by rule clustered-extremes"*"< 0.999"*) ;;
	*) no "theta-min 0.999: $out" ;; esac
out=$("$bw" evt "$tmp/w.txt" --json --theta-method intervals)
case $out in *'"method":"intervals"'*) ;; *) no "intervals: $out" ;; esac

# strongly dependent: refused, exit 1, the reason names dependence
"$gen" samples --dist ar1:0.5:5000:30 --n 25000 --seed 6 -o "$tmp/ar.txt"
out=$("$bw" evt "$tmp/ar.txt" --json)
rc=$?
[ $rc = 1 ] || no "ar1: exit $rc"
case $out in *'"rule":"clustered-extremes","ok":false'*independ*) ;;
	*) no "ar1 not refused: $out" ;; esac
case $out in *'"1e-09":null'*) ;; *) no "ar1 reports a pWCET: $out" ;; esac
out=$("$bw" evt "$tmp/ar.txt")
case $out in *"no pWCET"*) ;; *) no "ar1 text: $out" ;; esac

# non-stationary: a level shift between the halves
{ head -12500 "$tmp/g.txt"; tail -12500 "$tmp/g.txt" |
	awk '{ printf "%.3f\n", $1 + 200 }'; } >"$tmp/shift.txt"
out=$("$bw" evt "$tmp/shift.txt" --json)
case $out in *'"rule":"non-stationary","ok":false'*) ;;
	*) no "shift accepted: $out" ;; esac

# [EVT-CUDA] Table 2, VOR-1 T_DEV: 12083, 12278, 12474 ns per block of 25
# is a Gumbel with beta 28.229, mu 11693.0; runs of Gumbel(mu - beta ln 25,
# beta) have such maxima.  Per run, each value is beta ln 25 = 90.9 less.
"$gen" samples --dist gumbel:11602.134:28.229 --n 100000 --seed 8 \
	-o "$tmp/vor.txt"
out=$("$bw" evt "$tmp/vor.txt" --per block --json)
echo "$out" | awk -v RS=, -F: '
	/"1e-06"/ { a = $NF } /"1e-09"/ { b = $NF } /"1e-12"/ { c = $NF }
	END { exit !(a > 12068 && a < 12098 && b > 12253 && b < 12303 &&
	    c > 12439 && c < 12509) }' ||
	no "Table 2 row not reproduced per block: $out"
case $out in *'"per":"block"'*'"ok":true'*) ;; *) no "per block: $out" ;;
esac
run=$("$bw" evt "$tmp/vor.txt" --json)
echo "$out $run" | awk -v RS=, -F: '
	/"beta"/ { beta = $NF } /"1e-09"/ { v[n++] = $NF }
	END { d = v[0] - v[1] - beta * log(25); exit !(d > -1 && d < 1) }' ||
	no "per block - per run is not beta ln 25: $out $run"

# too few samples: a clear refusal, exit 2
head -300 "$tmp/g.txt" >"$tmp/few.txt"
out=$("$bw" evt "$tmp/few.txt" 2>&1)
rc=$?
[ $rc = 2 ] || no "few: exit $rc"
case $out in *"too few samples"*) ;; *) no "few: $out" ;; esac
out=$("$bw" evt "$tmp/g.txt" --block 0 2>&1) && no "block 0 accepted"
for bad in "--per day" "--theta-min 0" "--theta-min 1.5" \
    "--theta-method max"; do
	# shellcheck disable=SC2086
	out=$("$bw" evt "$tmp/g.txt" $bad 2>&1)
	rc=$?
	[ $rc = 2 ] || no "$bad: exit $rc"
	case $out in *"bad --"*) ;; *) no "$bad: $out" ;; esac
done
printf '1\nx\n' >"$tmp/bad.txt"
out=$("$bw" evt "$tmp/bad.txt" 2>&1)
case $out in *"line 2"*) ;; *) no "bad line: $out" ;; esac
exit $fail
