# env.sh - sourced by the CUDA tests: a directory where the fake driver
# is libcuda.so.1, and the preload library's path.
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bwcuda.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fakedir=$top_builddir/fakecuda/.libs
preload=$top_builddir/client/cuda/.libs/libbwcuda.so
[ -f "$fakedir/libfakecuda.so" ] && [ -f "$preload" ] || {
	echo "fake driver or libbwcuda.so not built" >&2; exit 99; }
ln -s "$fakedir/libfakecuda.so" "$tmp/libcuda.so.1"
LD_LIBRARY_PATH=$tmp:$fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# the sanitizer runtime cannot come first when something is preloaded
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0\
${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export LD_LIBRARY_PATH ASAN_OPTIONS
unset CUDA_INJECTION64_PATH BWSCHED_PROFILES BWSCHED_CUDA_SINK
# A sanitizer build of the preload library in a program built without
# sanitizers (nvcc's): the sanitizer runtime has to be loaded first.
foreign_preload=$preload
san=$(ldd "$preload" 2>/dev/null | awk '/libasan\.so/ { print $3 }')
[ -n "$san" ] && foreign_preload="$san $preload"
