#!/bin/sh
# bwanalyze ptx, bwsim sm and bwsim warps: JSON fields, names and indexes,
# determinism, the estimate against the simulated maximum, the analyzer
# output of [Reorder]'s example, Fig. 4.1, and bad input (exit 2 and a
# message that says what is wrong).
set -u
an=${top_builddir:-.}/tools/bwanalyze
sim=${top_builddir:-.}/tools/bwsim
k=${top_srcdir:-.}/examples/kernels
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
num() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" "$2"; }

va="$k/vecadd.ptx --grid 4 --block 128 --param 3=512"
# shellcheck disable=SC2086
$an ptx $va --json > "$tmp/a.json" || err "bwanalyze ptx"
for key in warps instructions segments global_requests miss_rate_est \
    wcet_cycles_no_mr wcet_cycles_mr; do
	grep -q "\"$key\":" "$tmp/a.json" || err "bwanalyze ptx: no $key"
done
[ "$(num warps "$tmp/a.json")" = 16 ] || err "vecadd: 16 warps"
$an ptx "$k/vecadd.ptx" --kernel vecadd --grid 4 --block 128 \
    --param vecadd_param_3=512 --json > "$tmp/b.json" || err "by name"
cmp -s "$tmp/a.json" "$tmp/b.json" || err "param by name and index differ"
# shellcheck disable=SC2086
$an ptx $va > "$tmp/a.txt" || err "text output"
grep -q "miss rate" "$tmp/a.txt" || err "text: no miss rate"
# shellcheck disable=SC2086
$an ptx $va --l1 32K,8,64 --lbase 300 --conflict-sms 4 --lat alu=6,sfu=30 \
    --json > "$tmp/c.json" || err "model options"
[ "$(num global_requests "$tmp/c.json")" = 96 ] ||
	err "64-byte lines: 96 requests"

# the simulator: deterministic for a seed, never above the estimate
for pol in lrr gto rtpaws; do
	# shellcheck disable=SC2086
	$sim sm $va --policy $pol --reorder --runs 6 --seed 3 --json \
	    > "$tmp/s.json" || err "bwsim sm $pol"
	for key in cycles_min cycles_mean cycles_max miss_rate; do
		grep -q "\"$key\":" "$tmp/s.json" || err "sm $pol: no $key"
	done
	[ "$(num cycles_max "$tmp/s.json")" -le \
	    "$(num wcet_cycles_mr "$tmp/a.json")" ] ||
		err "sm $pol: above the estimate"
	[ "$(num miss_rate "$tmp/s.json")" = "$(num miss_rate_est \
	    "$tmp/a.json")" ] || err "sm $pol: miss rate not the estimate's"
done
# shellcheck disable=SC2086
$sim sm $va --policy rtpaws --reorder --runs 6 --seed 3 --json \
    > "$tmp/s2.json" || err "bwsim sm again"
cmp -s "$tmp/s.json" "$tmp/s2.json" || err "bwsim sm not deterministic"

# [Reorder] section III-D: two blocks of two warps, loads then stores
cat > "$tmp/paper.ptx" <<'PTX'
.version 1.4
.target sm_13
.entry _example (
.param .u64 __cudaparm_input_cuda
)
{
.reg .u32 %r<29>;
.reg .u64 %rd<33>;
.reg .f32 %f<20>;
.reg .pred %p<6>;
ld.param.u64 %rd5, [__cudaparm_input_cuda];
cvt.s32.u32 %r3, %tid.x;
mul.wide.s32 %rd3, %r3, 32;
add.u64 %rd8, %rd5, %rd3;
cvt.s32.u32 %r1, %ctaid.y;
mov.s32 %r2, 0;
setp.eq.s32 %p1, %r1, %r2;
@!%p1 bra $L1;
ld.global.f32 %f1, [%rd8+4];
bra $L2;
$L1 :
st.global.f32 [%rd8+2048], %f2;
$L2 :
exit;
}
PTX
$an ptx "$tmp/paper.ptx" --grid 1,2 --block 16,4 --param 0=0 --accesses \
    > "$tmp/paper.txt" || err "paper example"
cat > "$tmp/paper.want" <<'OUT'
block 0 warp 0: [L line 19: 0x0 0x80 0x100 0x180]
block 0 warp 1: [L line 19: 0x0 0x80 0x100 0x180]
block 1 warp 0: [S line 22: 0x800 0x880 0x900 0x980]
block 1 warp 1: [S line 22: 0x800 0x880 0x900 0x980]
OUT
cmp -s "$tmp/paper.txt" "$tmp/paper.want" || err "paper example output"

# Fig. 4.1 and two instances of a kernel
$sim warps --example fig4.1 --json > "$tmp/f.json" || err "fig4.1"
for key in '"lrr":{"k1_finish"' '"gto":{"k1_finish"' \
    '"rtpaws":{"k1_finish"' '"k2_finish"' '"average":24.5' \
    '"average":21.5' '"average":22.5' '"rtpaws_max_least":true'; do
	grep -qF "$key" "$tmp/f.json" || err "fig4.1: no $key"
done
$sim warps --example fig4.1 > "$tmp/f.txt" || err "fig4.1 text"
grep -q "^  warp 3 (K2) " "$tmp/f.txt" || err "fig4.1: no timeline"
# shellcheck disable=SC2086
$sim warps $va --p 2,4 --runs 2 --json > "$tmp/w.json" || err "warps"
for key in '"lrr":{"k1"' '"gto":{"k1"' '"rtpaws":{"p":' '"by_p":[' \
    '"k2":' '"average":'; do
	grep -qF "$key" "$tmp/w.json" || err "warps: no $key"
done

# bad input: exit 2 and a message
bad() {
	want=$1
	shift
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || err "'$*' exited $rc, not 2"
	grep -q -- "$want" "$tmp/err" || {
		err "'$*': no '$want' in: $(cat "$tmp/err")"
	}
}
bad "No such file" $an ptx "$tmp/none.ptx" --grid 1 --block 32
bad "needs a value" $an ptx "$k/vecadd.ptx" --grid 1 --block 32
bad "has no kernel 'nope'" $an ptx "$k/vecadd.ptx" --kernel nope --grid 1 \
    --block 32 --param 3=1
bad "no parameter 'x'" $an ptx "$k/vecadd.ptx" --grid 1 --block 32 \
    --param x=1
bad "bad value" $an ptx "$k/vecadd.ptx" --grid 1 --block 32 --param 3=zz
bad "grid and --block are required" $an ptx "$k/vecadd.ptx" --param 3=1
bad "bad value '0'" $an ptx "$k/vecadd.ptx" --grid 0 --block 32 --param 3=1
bad "more than 1024 threads" $an ptx "$k/vecadd.ptx" --grid 1 \
    --block 64,64 --param 3=1
bad "--l1" $an ptx "$k/vecadd.ptx" --grid 1 --block 32 --param 3=1 \
    --l1 1000,3,100
bad "unknown class" $an ptx "$k/vecadd.ptx" --grid 1 --block 32 \
    --param 3=1 --lat foo=3
bad "unknown argument" $an ptx "$k/vecadd.ptx" --frobnicate
bad "lrr, gto or rtpaws" $sim sm "$k/vecadd.ptx" --grid 1 --block 32 \
    --param 3=1 --policy fifo
bad "does not fit" $an ptx "$k/vecadd.ptx" --grid 1 --block 1024 \
    --param 3=1 --max-warps 16
bad "the example is fig4.1" $sim warps --example fig9
bad "e.g. 2,4,8" $sim warps $va --p 1
printf '.version 9.0\n.entry k(.param .u64 k_p)\n{\n.reg .b64 %%rd<4>;\n.reg .b32 %%r<2>;\nld.param.u64 %%rd1, [k_p];\ncvta.to.global.u64 %%rd2, %%rd1;\nld.global.u32 %%r1, [%%rd2];\ncvt.u64.u32 %%rd3, %%r1;\nld.global.u32 %%r1, [%%rd3];\nret;\n}\n' \
    > "$tmp/gather.ptx"
bad "line 10: the global address depends on a value" \
    $an ptx "$tmp/gather.ptx" --grid 1 --block 32
printf '.version 9.0\n.entry k()\n{\nfoo.u32 x;\n}\n' > "$tmp/bad.ptx"
bad "line 4: unknown or unsupported instruction 'foo.u32'" \
    $sim sm "$tmp/bad.ptx" --grid 1 --block 32
exit $fail
