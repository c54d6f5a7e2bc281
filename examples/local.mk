# examples: the walking-skeleton demo (scripts/demo runs examples/demo.sh)
noinst_PROGRAMS += examples/demo_client
examples_demo_client_SOURCES = examples/demo_client.c
examples_demo_client_LDADD = client/libbwclient.la
dist_noinst_SCRIPTS += examples/demo.sh
