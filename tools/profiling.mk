# tools/profiling.mk: bwanalyze cluster/evt/plot (issue 7)
