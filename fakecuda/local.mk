# fakecuda: a fake CUDA driver and runtime, test doubles with no GPU
# (fakecuda/fakecuda.h) that the CUDA layer's tests and its benchmark
# run against.  Shared objects (-rpath makes libtool build them shared),
# the driver linked -Bsymbolic like the real one.
# It sees only itself (and AM_CPPFLAGS).
FAKECUDA_CPPFLAGS = -I$(top_srcdir)/fakecuda
check_LTLIBRARIES += fakecuda/libfakecuda.la fakecuda/libfakecudart.la
fakecuda_libfakecuda_la_SOURCES = fakecuda/fakecuda.c fakecuda/fakecuda.h \
	fakecuda/fakegreen.c
fakecuda_libfakecuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(FAKECUDA_CPPFLAGS)
fakecuda_libfakecuda_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-rpath $(abs_builddir) -Wl,-Bsymbolic
fakecuda_libfakecudart_la_SOURCES = fakecuda/fakecudart.c \
	fakecuda/fakecuda.h
fakecuda_libfakecudart_la_CPPFLAGS = $(AM_CPPFLAGS) $(FAKECUDA_CPPFLAGS)
fakecuda_libfakecudart_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version \
	-rpath $(abs_builddir)
fakecuda_libfakecudart_la_LIBADD = -ldl
