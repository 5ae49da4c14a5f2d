# SPDX-License-Identifier: Apache-2.0
# The rankmap Python package (pure Python): `make install` copies it where
# this prefix's python3 finds it (Debian: /usr/lib/python3/dist-packages
# for /usr, PREFIX/lib/python3.X/dist-packages otherwise). PYTHONDIR
# overrides; `pip install ./python` is the other way in.
PYVER := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
PY_SRC := $(wildcard python/rankmap/*.py)

install-python: $(PY_SRC)
	install -d $(DESTDIR)$(PYTHONDIR)/rankmap
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYTHONDIR)/rankmap/

uninstall-python:
	rm -rf $(DESTDIR)$(PYTHONDIR)/rankmap

INSTALL_STEPS   += install-python
UNINSTALL_STEPS += uninstall-python
