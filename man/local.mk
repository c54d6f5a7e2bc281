# man: rules for this part (see Makefile.am)
