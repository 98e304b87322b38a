# SPDX-License-Identifier: GPL-2.0-only
# Sphinx configuration of the fl module's documentation: doc/fl.rst (the module's page, as in
# ns-3's model library) and the chapters it lists. Builds offline with Debian's python3-sphinx:
# no intersphinx, no theme but Sphinx's own. The test suite builds it with warnings as errors
# (ctest doc.sphinx):  sphinx-build -W -b html doc build/doc-html
project = "fl: federated and decentralised learning in ns-3"
root_doc = "fl"
master_doc = "fl"  # the same, for Sphinx before 4.0
exclude_patterns = ["examples", "figures"]
highlight_language = "cpp"
html_theme = "alabaster"
html_static_path = []
