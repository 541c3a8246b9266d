# Makefile -- PGXS build of hummock_stream (PostgreSQL 15)
#
#   make && sudo make install            build and install the extension
#   make unitcheck                       storage-core unit tests (no server)
#   make installcheck                    pg_regress, isolation and TAP suites
#                                        (each starts its own throwaway server
#                                        with the library preloaded; run as a
#                                        non-root user)
#   scripts/test.sh                      all of the above, from scratch (root)

EXTENSION   = hummock_stream
EXTVERSION  = 0.1
MODULE_big  = hummock_stream

# ---- objects, by module, bottom first (scripts/check-layering.sh holds
# each to the modules below it): storage -> pg (platform) -> row -> meta ->
# stream, batch -> entry (_PG_init, settings, hooks) ----
STORAGE_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/storage/*.c)))
PG_OBJS      = $(patsubst %.c,%.o,$(sort $(wildcard src/pg/*.c)))
ROW_OBJS     = $(patsubst %.c,%.o,$(sort $(wildcard src/row/*.c)))
META_OBJS    = $(patsubst %.c,%.o,$(sort $(wildcard src/meta/*.c)))
STREAM_OBJS  = $(patsubst %.c,%.o,$(sort $(wildcard src/stream/*.c src/stream/*/*.c)))
BATCH_OBJS   = $(patsubst %.c,%.o,$(sort $(wildcard src/batch/*.c)))
ENTRY_OBJS   = $(patsubst %.c,%.o,$(sort $(wildcard src/entry/*.c)))
OBJS = $(STORAGE_OBJS) $(PG_OBJS) $(ROW_OBJS) $(META_OBJS) $(STREAM_OBJS) \
	   $(BATCH_OBJS) $(ENTRY_OBJS)

DATA = $(wildcard sql/$(EXTENSION)--*.sql)

PG_CPPFLAGS = -I$(srcdir)/include
# 'override' so that a command-line PG_CFLAGS=-Werror adds to these
override PG_CFLAGS += -Wextra -Wno-unused-parameter
SHLIB_LINK += -lzstd -llz4
# collation sort keys of ICU collations (memcmp_key.c), as the server links it
SHLIB_LINK += $(ICU_LIBS)
# export only prefixed symbols (exports.map; make check-symbols verifies)
SHLIB_LINK += -Wl,--version-script=$(srcdir)/exports.map

# The server is built with LLVM; we do not need JIT inlining of our code,
# and skipping the bitcode keeps clang out of the build.
override with_llvm = no

# ---- tests ----
TEST_CONF = test/$(EXTENSION).conf
REGRESS = $(patsubst sql/%.sql,%,$(filter-out sql/$(EXTENSION)--%,$(sort $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --temp-instance=./tmp_check --temp-config=$(TEST_CONF)
ISOLATION = $(patsubst specs/%.spec,%,$(sort $(wildcard specs/*.spec)))
ISOLATION_OPTS = --inputdir=. --temp-instance=./tmp_check_iso --temp-config=$(TEST_CONF)
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

EXTRA_CLEAN = .deps tmp_check tmp_check_iso results output_iso log regression.diffs regression.out

# rebuild objects whose headers changed (struct layouts travel between files)
override autodepend = yes

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Includes and calls point down the module order (scripts/check-layering.sh).
.PHONY: check-layering
check-layering: $(shlib)
	@$(srcdir)/scripts/check-layering.sh $(srcdir)

# The shared library exports only prefixed symbols (exports.map).
.PHONY: check-symbols
check-symbols: $(shlib)
	@bad=$$(nm -D --defined-only $(shlib) | awk '{print $$3}' | \
		grep -vE '^(Hs[A-Z]|hs_|hummock_|pg_finfo_hummock_|Pg_magic_func$$|_PG_init$$)'); \
	if [ -n "$$bad" ]; then echo "unprefixed exported symbols:"; echo "$$bad"; exit 1; fi; \
	echo "check-symbols: $$(nm -D --defined-only $(shlib) | wc -l) exported symbols, all prefixed"

# Storage-core unit tests: plain C, no server.
.PHONY: unitcheck
unitcheck:
	$(MAKE) -C test/unit UNIT_WERROR="$(filter -Werror,$(PG_CFLAGS) $(COPT))"
