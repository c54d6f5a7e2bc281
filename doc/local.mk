# doc: rules for this part (see Makefile.am)
dist_doc_DATA += doc/references.md doc/design.md
