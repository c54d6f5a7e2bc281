# examples: rules for this part (see Makefile.am)
