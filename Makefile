# passconduit — build and install.
#   make              release build (static Swift stdlib: starts in half the time, see DESIGN.md)
#   make install      binary, trust anchors, man page, integration recipes under $(DESTDIR)$(PREFIX)
#   make install-user desktop entry, mailcap and mime.types lines for the current user
#   make uninstall
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR      = $(DESTDIR)$(PREFIX)/bin
SHAREDIR    = $(DESTDIR)$(PREFIX)/share/passconduit
DOCDIR      = $(DESTDIR)$(PREFIX)/share/doc/passconduit
MANDIR      = $(DESTDIR)$(PREFIX)/share/man/man1
APPDIR      = $(DESTDIR)$(PREFIX)/share/applications
UNITDIR     = $(DESTDIR)$(PREFIX)/lib/systemd/system
USERUNITDIR = $(DESTDIR)$(PREFIX)/lib/systemd/user
BUILD_PATH ?= .build-static
SWIFT      ?= swift
BINARY      = $(BUILD_PATH)/release/passconduit
XDG_DATA_HOME ?= $(HOME)/.local/share
# Pack the ~100 000 relative relocations of the static-stdlib binary (DT_RELR, glibc >= 2.36):
# the dynamic loader's share of start-up drops from ~4.4 M to ~0.8 M cycles. Needs lld (the Swift
# toolchain ships it); without it the build links as usual.
# script/ld-as-needed is lld with --as-needed first: cairo, pango and zint (and the ~40 libraries they
# pull in) are then reached only through the trampolines of script/gen-lazy-shims, loaded on the
# first render or barcode, not at every start (the dynamic loader's symbol lookups over 50
# libraries were most of `passconduit --version`'s 10 ms).
RELR_FLAGS ?= $(shell command -v ld.lld >/dev/null 2>&1 && echo "-Xswiftc -use-ld=$(CURDIR)/script/ld-as-needed -Xlinker -z -Xlinker pack-relative-relocs")

# Concrete generic types (Dictionary<String, String>, GRDB's and the trust store's caches) get
# metadata accessors that pass their conformances directly, instead of a mangled name the runtime
# demangles on first use; each of those first uses scanned all ~10 600 protocol conformance records
# of the binary (0.3-0.6 M instructions each, ~20 on the delivery filter's path with a pass).
# Filter with one pass 41.8 -> 36.3 M instructions, without 4.78 -> 4.05 M; binary text +0.8 %.
METADATA_FLAGS ?= -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

# No $ORIGIN in the executable's search path (SwiftPM adds it for a package's own shared libraries;
# this binary has none): the dynamic loader then looks for libm, libgcc_s and libc, and dlopen for
# libcrypto, libzip, libmagic and SQLite, only where the system keeps them, instead of first
# probing the binary's own folder and its 19 hardware-capability subfolders for each (40 failed
# openat/newfstatat at every start, 42 more with a pass), and a library dropped next to an
# installed binary is never loaded.
RPATH_FLAGS ?= --disable-local-rpath

# PIE=no links a position-dependent executable. Opt-in, and a trade-off: the executable image
# (code, Swift metadata, the GOT) then sits at the same address in every process, so it gives up
# ASLR for the program's own code, which parses hostile mail. In exchange the dynamic loader has
# no relocations to apply: the PIE's ~140 000 relative relocations make a private copy of every
# page of .data.rel.ro and .data (~430 page faults, 1.7 MB) at every start, about half of
# `passconduit --version` (see Benchmarks/filter/README.md for figures).
PIE ?= yes
PIE_FLAGS = $(if $(filter no,$(PIE)),-Xlinker --no-pie)

# The commit `passconduit --version` names (and the package's changelog): from git, "-dirty" when
# the work tree has changes; none outside a checkout.
COMMIT ?= $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null && echo $$c || echo $$c-dirty; })
COMMIT_FLAGS = $(if $(COMMIT),-Xcc -DPASSCONDUIT_COMMIT='"$(COMMIT)"')

.PHONY: all build install install-user uninstall check deb

all: build

build:
	$(SWIFT) build -c release --static-swift-stdlib --build-path $(BUILD_PATH) --product passconduit $(RELR_FLAGS) $(METADATA_FLAGS) $(RPATH_FLAGS) $(PIE_FLAGS) $(COMMIT_FLAGS)
	script/check-release-link $(BINARY)

# The trust anchors land in share/passconduit/trust: TrustStore.shippedDirectory() looks for
# <exe>/../share/passconduit/trust.
# Installs what `make build` (or `make BUILD_PATH=… build`) left: it never builds, so a root install
# on a mail host needs no Swift toolchain, only this tree with its build.
install:
	@test -x $(BINARY) || { echo "make install: $(BINARY) does not exist: run make build first (as yourself, not root)" >&2; exit 1; }
	install -d $(BINDIR) $(SHAREDIR)/trust $(MANDIR) $(APPDIR) $(DOCDIR)/integrations $(UNITDIR) $(USERUNITDIR)
	install -m 755 $(BINARY) $(BINDIR)/passconduit
	install -m 755 Bots/matrix/passconduit-matrix $(BINDIR)/passconduit-matrix
	if [ -d Config/trust ]; then for f in Config/trust/*; do [ -f "$$f" ] && install -m 644 "$$f" $(SHAREDIR)/trust/; done; fi
	if [ -f Config/passconduit.magic ]; then install -m 644 Config/passconduit.magic $(SHAREDIR)/; fi
	for f in Samples/integrations/man/*.1 $(wildcard man/*.1 Docs/*.1); do [ -f "$$f" ] && install -m 644 "$$f" $(MANDIR)/; done
	install -d $(MANDIR)/../man5 && for f in $(wildcard Docs/*.5); do install -m 644 "$$f" $(MANDIR)/../man5/; done
	install -d $(MANDIR)/../man8 && for f in $(wildcard Docs/*.8); do install -m 644 "$$f" $(MANDIR)/../man8/; done
	install -m 644 Samples/integrations/desktop/passconduit.desktop Samples/integrations/desktop/passconduit-open.desktop $(APPDIR)/
	if [ -f Config/config.toml ]; then install -m 644 Config/config.toml $(DOCDIR)/config.toml.example; fi
	install -m 644 Config/matrix.toml $(DOCDIR)/matrix.toml.example
	cp -R Samples/integrations/. $(DOCDIR)/integrations/
	chmod -R u=rwX,go=rX $(DOCDIR)/integrations
	# The units run the binary where this install put it ($(PREFIX)/bin), not where the samples say.
	for u in Samples/integrations/systemd/*.service Samples/integrations/systemd/*.timer; do \
	  case "$$u" in */passconduit-update.*) d=$(USERUNITDIR) ;; *) d=$(UNITDIR) ;; esac; \
	  sed -e 's|/usr/local/bin/passconduit|$(PREFIX)/bin/passconduit|g' -e 's|%h/.local/bin/passconduit|$(PREFIX)/bin/passconduit|g' "$$u" > "$$d/$$(basename $$u)"; \
	  chmod 644 "$$d/$$(basename $$u)"; done
	# What this install wrote, for `make uninstall` (paths without DESTDIR).
	cd $(DESTDIR)/ && find .$(PREFIX)/bin/passconduit .$(PREFIX)/share/passconduit .$(PREFIX)/share/doc/passconduit \
	  $(patsubst $(DESTDIR)/%,./%,$(UNITDIR) $(USERUNITDIR)) .$(PREFIX)/share/applications .$(PREFIX)/share/man/man1 .$(PREFIX)/share/man/man5 \
	  -type f \( -path '*passconduit*' \) 2>/dev/null | sed 's|^\.||' | sort > $(SHAREDIR)/installed-files.tmp
	echo $(PREFIX)/share/passconduit/installed-files >> $(SHAREDIR)/installed-files.tmp
	mv $(SHAREDIR)/installed-files.tmp $(SHAREDIR)/installed-files

# update-desktop-database (desktop-file-utils) and update-mime-database (shared-mime-info) only
# refresh caches; without them the entries still work, so its absence is not an error. Our mailcap lines (the ones running passconduit) are
# replaced by the current ones, so running it again or after an older version leaves one set;
# mime.types lines are added once each.
install-user:
	install -d $(XDG_DATA_HOME)/applications
	install -m 644 Samples/integrations/desktop/passconduit.desktop Samples/integrations/desktop/passconduit-open.desktop $(XDG_DATA_HOME)/applications/
	if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database $(XDG_DATA_HOME)/applications; fi
	install -d $(XDG_DATA_HOME)/mime/packages
	install -m 644 Samples/integrations/desktop/passconduit-mime.xml $(XDG_DATA_HOME)/mime/packages/passconduit.xml
	if command -v update-mime-database >/dev/null 2>&1; then update-mime-database $(XDG_DATA_HOME)/mime; fi
	touch $(HOME)/.mailcap $(HOME)/.mime.types
	tmp=$$(mktemp) && { grep -Ev 'passconduit (add|scan|open) ' $(HOME)/.mailcap; grep -v '^#' Samples/integrations/mutt/mailcap; } > $$tmp; cat $$tmp > $(HOME)/.mailcap; rm -f $$tmp
	grep -v '^#' Samples/integrations/mutt/mime.types | while IFS= read -r line; do [ -z "$$line" ] || grep -qxF "$$line" $(HOME)/.mime.types || printf '%s\n' "$$line" >> $(HOME)/.mime.types; done

# Removes exactly the files `make install` listed, then the folders of its own that are left empty.
uninstall:
	@test -f $(SHAREDIR)/installed-files || { echo "make uninstall: $(SHAREDIR)/installed-files is missing: nothing recorded to remove" >&2; exit 1; }
	while IFS= read -r f; do rm -f "$(DESTDIR)$$f"; done < $(SHAREDIR)/installed-files
	find $(SHAREDIR) $(DOCDIR) -depth -type d -empty -delete 2>/dev/null || true

check:
	$(SWIFT) test

# passconduit_VERSION_ARCH.deb from the release build (script/build-deb says what goes where).
deb: build
	script/build-deb --binary $(BINARY)
