# mk/budget.mk - rpd-budget (raptor/report/budget.c): a second name of the
# raptor binary, whose main() runs the budget check when invoked so.  A hard
# link, so `make install` (which copies bin/*) installs a working copy.
BUDGET_BIN := $(BIN)/rpd-budget
EXTRA_ALL += $(BUDGET_BIN)

$(BUDGET_BIN): $(RAPTOR_BIN)
	ln -f $< $@
