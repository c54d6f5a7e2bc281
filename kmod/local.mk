# kmod: rules for this part (see Makefile.am)
clean-local-kmod:
