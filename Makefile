# realtime.virt: one entry point.  On a fresh Debian 12 machine, as root:
#   make demo   set everything up, then run the main playbook on localhost
#   make test   set everything up, then lint, sanity, unit and integration tests
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
BIN := $(VENV)/bin
COLLECTIONS := .cache/collections
LINK := $(COLLECTIONS)/ansible_collections/realtime/virt
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/$(COLLECTIONS)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PYTHONPATH := $(CURDIR)/$(COLLECTIONS)
# Role-task coverage (docs/testing.md): every ansible-playbook a target runs
# records the role tasks it ran into REALTIME_VIRT_COVERAGE_DIR (set it empty
# to record nothing). The callback is added to the callback directories and
# enabled callbacks the environment already names, not put in their place.
comma := ,
COVERAGE_CALLBACKS := $(CURDIR)/tests/coverage/callback_plugins
COVERAGE_CALLBACK := realtime_virt_coverage
export REALTIME_VIRT_COVERAGE_DIR ?= $(CURDIR)/tests/output/coverage
ifeq ($(filter $(COVERAGE_CALLBACKS),$(subst :, ,$(ANSIBLE_CALLBACK_PLUGINS))),)
export ANSIBLE_CALLBACK_PLUGINS := $(if $(ANSIBLE_CALLBACK_PLUGINS),$(ANSIBLE_CALLBACK_PLUGINS):)$(COVERAGE_CALLBACKS)
endif
ifeq ($(filter $(COVERAGE_CALLBACK),$(subst $(comma), ,$(ANSIBLE_CALLBACKS_ENABLED))),)
export ANSIBLE_CALLBACKS_ENABLED := $(if $(ANSIBLE_CALLBACKS_ENABLED),$(ANSIBLE_CALLBACKS_ENABLED)$(comma))$(COVERAGE_CALLBACK)
endif

.PHONY: help setup host venv collection services demo demo-clean test lint imports sanity units matrix integration molecule lab build-check bench bench-smoke clean coverage coverage-clean release docs

help:
	@echo "make demo         set up this machine, then run playbooks/site.yml on localhost"
	@echo "make test         set up, then lint, sanity, unit, build, integration and molecule tests (lab VM included)"
	@echo "make lab          set up, then only the lab scenario (a booted Debian VM: reboot, 1G pages, SR-IOV)"
	@echo "make demo-clean   undo make demo: remove its domain, pools and host tuning (playbooks/undo.yml)"
	@echo "make coverage     which role tasks the tests recorded since coverage-clean ran (make test does both)"
	@echo "make release      changelog for galaxy.yml's version, tarball in dist/, every check on it; prints what to publish"
	@echo "make matrix       unit tests on the older ansible-core versions meta/runtime.yml claims, sanity on the oldest"
	@echo "make docs         the documentation site in build/docs/html (antsibull-docs, Sphinx), checked in headless chromium"
	@echo "make units | integration | molecule | lint | imports | sanity | build-check | bench | coverage-clean"

setup: host venv collection services

host:
	@scripts/host-packages.sh

$(BIN)/.installed: requirements-dev.txt scripts/find-python.sh
	@echo "venv: installing pinned Python dependencies into $(VENV)"
	@if [ -x $(BIN)/python ] && ! PYTHON=$(BIN)/python scripts/find-python.sh >/dev/null 2>&1; then \
		echo "venv: $(VENV) runs $$($(BIN)/python -V 2>&1), not the Python scripts/find-python.sh asks for: building it again"; \
		rm -rf $(VENV); fi
	@test -x $(BIN)/python || { python=$$(scripts/find-python.sh) && echo "venv: creating $(VENV) with $$python" && "$$python" -m venv $(VENV); }
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

# Every task the tests run on this host runs in this venv's Python, which
# imports Ansible's module payloads from zip files and so compiled
# ansible.module_utils again for each task. A .pth file turns on the bytecode
# cache the lab VM uses too, kept in .cache/pyc (docs/testing.md, "Test speed:
# a bytecode cache for module payloads").
PYC_CACHE := extensions/molecule/lab/files/rtv_pyc_cache.py
$(BIN)/.pyc-cache: $(BIN)/.installed $(PYC_CACHE)
	@$(BIN)/python -c 'import os, shutil, sys, sysconfig; site = sysconfig.get_paths()["purelib"]; \
shutil.copy(sys.argv[1], os.path.join(site, "rtv_pyc_cache.py")); \
open(os.path.join(site, "rtv_pyc_cache.pth"), "w").write("import rtv_pyc_cache; rtv_pyc_cache.install(%r)\n" % sys.argv[2])' \
		$(PYC_CACHE) "$(CURDIR)/.cache/pyc"
	@touch $@

venv: host $(BIN)/.installed $(BIN)/.pyc-cache

collection:
	@mkdir -p $(dir $(LINK))
	@[ "$$(readlink $(LINK))" = ../../../.. ] || ln -sfn ../../../.. $(LINK)
	@test -f $(LINK)/galaxy.yml

services: host
	@scripts/start-libvirt.sh

demo: setup
	ansible-playbook playbooks/site.yml

# make demo leaves this machine tuned, with its domain rtv-demo running and
# holding CPU 1. demo-clean takes it back through playbooks/undo.yml: the
# inventory's domains removed, then the hugepages and rt_host roles with
# state absent (docs/rollout.md "Undo"). The tests place domains on this
# machine's CPUs, so make test runs it first.
demo-clean: venv collection services
	ansible-playbook playbooks/undo.yml

# coverage-clean first and coverage last: the figure covers this run only.
# scripts/test.sh runs the stages setup, demo-clean, lint, imports, sanity,
# units, matrix, build-check, integration, molecule (all but the lab) and
# coverage in that order, with the lab scenario in the background beside
# them from the end of the set-up, and prints each stage's wall time
# (docs/testing.md, "The budget").
test: coverage-clean
	@scripts/test.sh
	@echo "make test: every stage passed"

# antsibull-docs finds collections through ansible-galaxy: this one through
# the link in $(COLLECTIONS), its dependencies in the ansible package.
lint: venv collection
	ansible-lint
	antsibull-changelog lint
	ANSIBLE_COLLECTIONS_PATH="$(CURDIR)/$(COLLECTIONS):$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
		antsibull-docs lint-collection-docs --plugin-docs .

# The import rules (.importlinter, docs/architecture.md).
imports: venv collection
	lint-imports --no-cache

sanity: venv collection
	scripts/sanity.sh

units: venv collection
	tests/unit/run.sh

# Every ansible-core minor that requires_ansible claims below .venv's
# (docs/testing.md, "The ansible-core version matrix").
matrix: venv collection
	tests/matrix/run.sh --quick

build-check: venv
	scripts/build-check.sh

# The documentation site in build/docs/html as docs.ansible.com draws a
# collection: modules, filters, roles and the guides of docs/ (scripts/docs.sh
# says how; every Sphinx warning fails it). Then a module page and a role page
# are opened in headless chromium and must show their options
# (tests/docs/check_site.py).
docs: venv collection
	scripts/docs.sh
	$(BIN)/python tests/docs/check_site.py

integration: setup
	tests/integration/run.sh

molecule: setup
	scripts/molecule.sh

lab: setup
	scripts/molecule.sh lab

coverage-clean:
	@if [ -n "$(REALTIME_VIRT_COVERAGE_DIR)" ]; then rm -f "$(REALTIME_VIRT_COVERAGE_DIR)"/*.jsonl; fi

coverage: venv
	$(BIN)/python tests/coverage/role_tasks.py

bench: setup
	@for bench in tests/bench/bench_*.py; do echo "=== $$bench"; $(BIN)/python "$$bench" || exit 1; done

# The fleet benchmarks' small form, a stage of make test: a few hosts, what
# they show and refuse checked, their timing reported without targets.
bench-smoke: venv collection
	$(BIN)/python tests/bench/bench_fleet.py --hosts 10 --no-probe --smoke
	$(BIN)/python tests/bench/bench_fleet_page.py --hosts 5 --smoke

clean:
	rm -rf .cache tests/output build dist realtime-virt-*.tar.gz

# The release procedure (docs/development.md, "Releasing"): publishes nothing.
release: setup
	@scripts/release.sh
