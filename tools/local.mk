# tools: rules for this part (see Makefile.am)
