# units: systemd units, sysusers/tmpfiles snippets, example configuration.
systemdsystemunit_DATA = units/bwsched.service units/bwsched.socket
CLEANFILES += units/bwsched.service
units/bwsched.service: $(top_srcdir)/units/bwsched.service.in Makefile
	$(AM_V_GEN)mkdir -p units && \
	sed -e 's|@sbindir[@]|$(sbindir)|g' $< > $@

sysusers_DATA = units/bwsched.sysusers
tmpfiles_DATA = units/bwsched.tmpfiles
# sysusers.d/tmpfiles.d want NAME.conf
install-data-hook: install-data-hook-units
install-data-hook-units:
	cd $(DESTDIR)$(sysusersdir) && mv -f bwsched.sysusers bwsched.conf
	cd $(DESTDIR)$(tmpfilesdir) && mv -f bwsched.tmpfiles bwsched.conf
	$(MKDIR_P) $(DESTDIR)$(sysconfdir)
	$(INSTALL_DATA) $(top_srcdir)/units/bwsched.conf \
		$(DESTDIR)$(sysconfdir)/bwsched.conf.example
uninstall-hook: uninstall-hook-units
uninstall-hook-units:
	rm -f $(DESTDIR)$(sysusersdir)/bwsched.conf \
		$(DESTDIR)$(tmpfilesdir)/bwsched.conf \
		$(DESTDIR)$(sysconfdir)/bwsched.conf.example
.PHONY: install-data-hook-units uninstall-hook-units

EXTRA_DIST += units/bwsched.service.in units/bwsched.socket \
	units/bwsched.sysusers units/bwsched.tmpfiles units/bwsched.conf
TESTS += units/verify.sh
dist_check_SCRIPTS += units/verify.sh
